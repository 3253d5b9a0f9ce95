import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { UuidParamPipe } from '@app/errors';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import {
  ApiErrorResponses,
  DataSourceDetailResponse,
  DataSourceResponse,
  MemberResponse,
} from '@app/contracts/openapi';
import { DataSourceDetailView, DataSourceView, MemberView } from '@app/contracts/views';
import { DataSourceMembersService } from './data-source-members.service';
import { DataSourcesService } from './data-sources.service';
import { AddMemberDto, CreateDataSourceDto, UpdateDataSourceDto } from './dto/data-source-input.dto';
import { dataSourceResponse } from '../dto/data-source.response';
import { memberResponse } from '../dto/member.response';

/** Who may change a data source; members only read, browse, search and start syncs. */
const MANAGE_RULE = 'Only its creator or a tenant admin; other members get 403 DATA_SOURCE_MANAGE_FORBIDDEN.';

@ApiTags('data sources')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1')
export class DataSourcesController {
  constructor(
    private readonly service: DataSourcesService,
    private readonly memberships: DataSourceMembersService,
  ) {}

  @Post('projects/:projectId/data-sources')
  @ApiOperation({
    summary: 'Connect a part of the document system to a project as a data source',
    description:
      'The caller becomes its creator and first member. An inline credential is tenant-wide when the caller ' +
      'may manage credentials, otherwise it belongs to this data source alone (scope DataSource).',
  })
  @ApiCreatedResponse({ type: DataSourceResponse })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId', UuidParamPipe) projectId: string,
    @Body() body: CreateDataSourceDto,
  ): Promise<DataSourceView> {
    return dataSourceResponse(await this.service.create(principal, projectId, body));
  }

  @Get('projects/:projectId/data-sources')
  @ApiOperation({
    summary: 'List the data sources of a project that I may read',
    description: 'Members see the data sources they belong to; tenant admins see all.',
  })
  @ApiOkResponse({ type: [DataSourceResponse] })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId', UuidParamPipe) projectId: string,
  ): Promise<DataSourceView[]> {
    return (await this.service.list(principal, projectId)).map(dataSourceResponse);
  }

  @Get('data-sources/:id')
  @ApiOperation({
    summary: 'Show a data source with where the text extraction of its documents stands',
    description: 'A document is searchable by name while its text is still pending. Non-members get 404.',
  })
  @ApiOkResponse({ type: DataSourceDetailResponse })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
  ): Promise<DataSourceDetailView> {
    const source = await this.service.get(principal, id);
    const extraction = await this.service.extractionProgress(source.id);
    return { ...dataSourceResponse(source), pendingExtractions: extraction.pending, extraction };
  }

  @Patch('data-sources/:id')
  @ApiOperation({
    summary: 'Rename a data source or change its credential, connection, selection or schedule',
    description: `${MANAGE_RULE} A new credential or connection user discards the selection (NotConfigured).`,
  })
  @ApiOkResponse({ type: DataSourceResponse })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
    @Body() body: UpdateDataSourceDto,
  ): Promise<DataSourceView> {
    return dataSourceResponse(await this.service.update(principal, id, body));
  }

  @Delete('data-sources/:id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a data source with its documents, text and files',
    description: MANAGE_RULE,
  })
  @ApiNoContentResponse()
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', UuidParamPipe) id: string): Promise<void> {
    await this.service.remove(principal, id);
  }

  @Get('data-sources/:id/members')
  @ApiOperation({ summary: 'List who may read a data source' })
  @ApiOkResponse({ type: [MemberResponse] })
  async members(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
  ): Promise<MemberView[]> {
    return (await this.memberships.list(principal, id)).map(memberResponse);
  }

  @Post('data-sources/:id/members')
  @ApiOperation({ summary: 'Give a user of the tenant access to a data source', description: MANAGE_RULE })
  @ApiCreatedResponse({ type: MemberResponse })
  async addMember(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
    @Body() body: AddMemberDto,
  ): Promise<MemberView> {
    return memberResponse(await this.memberships.add(principal, id, body.userId));
  }

  @Delete('data-sources/:id/members/:userId')
  @HttpCode(204)
  @ApiOperation({ summary: "Take a user's access to a data source away", description: MANAGE_RULE })
  @ApiNoContentResponse()
  async removeMember(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
    @Param('userId') userId: string,
  ): Promise<void> {
    await this.memberships.remove(principal, id, userId);
  }
}
