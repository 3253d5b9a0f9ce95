import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import {
  ApiErrorResponses,
  DataSourceDetailResponse,
  DataSourceDetailView,
  DataSourceResponse,
  DataSourceView,
  MemberResponse,
  MemberView,
} from '@app/contracts';
import { DataSourcesService } from './data-sources.service';
import { AddMemberDto, CreateDataSourceDto, UpdateDataSourceDto } from './dto/data-source-input.dto';
import { dataSourceResponse } from '../dto/data-source.response';

const memberView = (m: { userId: string; addedBy: string; createdAt: Date }): MemberView => ({
  userId: m.userId,
  addedBy: m.addedBy,
  createdAt: m.createdAt.toISOString(),
});

@ApiTags('data sources')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1')
export class DataSourcesController {
  constructor(private readonly service: DataSourcesService) {}

  @Post('projects/:projectId/data-sources')
  @ApiCreatedResponse({ type: DataSourceResponse })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId', ParseUUIDPipe) projectId: string,
    @Body() body: CreateDataSourceDto,
  ): Promise<DataSourceView> {
    return dataSourceResponse(await this.service.create(principal, projectId, body));
  }

  @Get('projects/:projectId/data-sources')
  @ApiOkResponse({ type: [DataSourceResponse] })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId', ParseUUIDPipe) projectId: string,
  ): Promise<DataSourceView[]> {
    return (await this.service.list(principal, projectId)).map(dataSourceResponse);
  }

  /** With where the text extraction of its documents stands (a document is searchable by name meanwhile). */
  @Get('data-sources/:id')
  @ApiOkResponse({ type: DataSourceDetailResponse })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<DataSourceDetailView> {
    const source = await this.service.get(principal, id);
    const extraction = await this.service.extractionProgress(source.id);
    return { ...dataSourceResponse(source), pendingExtractions: extraction.pending, extraction };
  }

  @Patch('data-sources/:id')
  @ApiOkResponse({ type: DataSourceResponse })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: UpdateDataSourceDto,
  ): Promise<DataSourceView> {
    return dataSourceResponse(await this.service.update(principal, id, body));
  }

  @Delete('data-sources/:id')
  @HttpCode(204)
  @ApiNoContentResponse()
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    await this.service.remove(principal, id);
  }

  @Get('data-sources/:id/members')
  @ApiOkResponse({ type: [MemberResponse] })
  async members(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<MemberView[]> {
    return (await this.service.listMembers(principal, id)).map(memberView);
  }

  @Post('data-sources/:id/members')
  @ApiCreatedResponse({ type: MemberResponse })
  async addMember(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: AddMemberDto,
  ): Promise<MemberView> {
    return memberView(await this.service.addMember(principal, id, body.userId));
  }

  @Delete('data-sources/:id/members/:userId')
  @HttpCode(204)
  @ApiNoContentResponse()
  async removeMember(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Param('userId') userId: string,
  ): Promise<void> {
    await this.service.removeMember(principal, id, userId);
  }
}
