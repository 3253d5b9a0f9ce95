import { Body, Controller, Param, Put } from '@nestjs/common';
import { UuidParamPipe } from '@app/errors';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { ApiErrorResponses, DataSourceResponse } from '@app/contracts/openapi';
import { DataSourceView } from '@app/contracts/views';
import { ConnectionTokens } from '../../document-system/connection-tokens.port';
import { DataSourceAccess } from '../data-source-access';
import { dataSourceResponse } from '../dto/data-source.response';
import { SelectionDto } from './dto/selection.dto';
import { SelectionService } from './selection.service';

@ApiTags('data sources')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1/data-sources/:id/selection')
export class SelectionController {
  constructor(
    private readonly access: DataSourceAccess,
    private readonly selection: SelectionService,
    private readonly connections: ConnectionTokens,
  ) {}

  @Put()
  @ApiOperation({
    summary: 'Choose the folders a data source ingests',
    description:
      'An included folder takes its whole subtree; an excluded folder inside it is left out. Only the data ' +
      "source's creator or a tenant admin (403 DATA_SOURCE_MANAGE_FORBIDDEN for other members); it records " +
      "the origin of the credential's instance URL as the one the creator's tokens may go to.",
  })
  @ApiOkResponse({ type: DataSourceResponse })
  async replace(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
    @Body() body: SelectionDto,
  ): Promise<DataSourceView> {
    const source = await this.access.manageable(principal, id);
    const connection = await this.connections.tenantConnection(source.tenantId, source.connectionId);
    return dataSourceResponse(await this.selection.replace(source, body, connection.subject));
  }
}
