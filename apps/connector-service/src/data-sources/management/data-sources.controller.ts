import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { DataSourcesService } from './data-sources.service';
import { AddMemberDto, CreateDataSourceDto, UpdateDataSourceDto } from './dto/data-source-input.dto';
import { dataSourceResponse } from '../dto/data-source.response';

const memberView = (m: { userId: string; addedBy: string; createdAt: Date }) => ({
  userId: m.userId,
  addedBy: m.addedBy,
  createdAt: m.createdAt.toISOString(),
});

@ApiTags('data sources')
@ApiBearerAuth()
@Controller('v1')
export class DataSourcesController {
  constructor(private readonly service: DataSourcesService) {}

  @Post('projects/:projectId/data-sources')
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId', ParseUUIDPipe) projectId: string,
    @Body() body: CreateDataSourceDto,
  ) {
    return dataSourceResponse(await this.service.create(principal, projectId, body));
  }

  @Get('projects/:projectId/data-sources')
  async list(@CurrentPrincipal() principal: Principal, @Param('projectId', ParseUUIDPipe) projectId: string) {
    return (await this.service.list(principal, projectId)).map(dataSourceResponse);
  }

  /** With where the text extraction of its documents stands (a document is searchable by name meanwhile). */
  @Get('data-sources/:id')
  async get(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string) {
    const source = await this.service.get(principal, id);
    const extraction = await this.service.extractionProgress(source.id);
    return { ...dataSourceResponse(source), pendingExtractions: extraction.pending, extraction };
  }

  @Patch('data-sources/:id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: UpdateDataSourceDto,
  ) {
    return dataSourceResponse(await this.service.update(principal, id, body));
  }

  @Delete('data-sources/:id')
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string) {
    await this.service.remove(principal, id);
  }

  @Get('data-sources/:id/members')
  async members(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return (await this.service.listMembers(principal, id)).map(memberView);
  }

  @Post('data-sources/:id/members')
  async addMember(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: AddMemberDto,
  ) {
    return memberView(await this.service.addMember(principal, id, body.userId));
  }

  @Delete('data-sources/:id/members/:userId')
  @HttpCode(204)
  async removeMember(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Param('userId') userId: string,
  ) {
    await this.service.removeMember(principal, id, userId);
  }
}
