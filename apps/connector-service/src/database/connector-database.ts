import { ServiceDatabaseOptions } from '@app/database';
import { OAuthConnectionEntity } from '../connections/oauth-connection.entity';
import { CredentialEntity } from '../credentials/credential.entity';
import { DataSourceMemberEntity } from '../data-sources/data-source-member.entity';
import { DataSourceEntity } from '../data-sources/data-source.entity';
import { DocumentEntity } from '../documents/document.entity';
import { OAuthProviderEntity } from '../providers/oauth-provider.entity';
import { ProviderSecretEntity } from '../providers/provider-secret.entity';
import { PickerFolderEntity } from '../data-sources/folders/picker-folder.entity';
import { SyncRunEntity } from '../sync/sync-run.entity';
import { ConnectorEventOutboxEntity } from '../events/connector-event-outbox.entity';
import { Credentials1795300000000 } from './migrations/1795300000000-credentials';
import { DataSources1795300001000 } from './migrations/1795300001000-data-sources';
import { Ingestion1795300002000 } from './migrations/1795300002000-ingestion';
import { OAuth1795300010000 } from './migrations/1795300010000-oauth';
import { OneConnectionPerProvider1795300011000 } from './migrations/1795300011000-one-connection-per-provider';
import { DocumentSearch1795300012000 } from './migrations/1795300012000-document-search';
import { PendingExtraction1795300013000 } from './migrations/1795300013000-pending-extraction';
import { SearchOpening1795300014000 } from './migrations/1795300014000-search-opening';
import { SearchBetweenVacuums1795300015000 } from './migrations/1795300015000-search-between-vacuums';
import { SyncSightings1795300016000 } from './migrations/1795300016000-sync-sightings';
import { FileSizeLimit1795300020000 } from './migrations/1795300020000-file-size-limit';
import { DataSourceAccess1795300022000 } from './migrations/1795300022000-data-source-access';
import { ConnectorEventOutbox1795300024000 } from './migrations/1795300024000-connector-event-outbox';
import { SearchableRuns1795300026000 } from './migrations/1795300026000-searchable-runs';
import { RunTotals1795300032000 } from './migrations/1795300032000-run-totals';
import { SearchCandidates1795300036000 } from './migrations/1795300036000-search-candidates';
import { CheaperToast1795300038000 } from './migrations/1795300038000-cheaper-toast';
import { SmallGinPendingLists1795300040000 } from './migrations/1795300040000-small-gin-pending-lists';
import { TokenRefreshLease1795300042000 } from './migrations/1795300042000-token-refresh-lease';
import { OAuthBrowserBinding1795300050000 } from './migrations/1795300050000-oauth-browser-binding';
import { DataSourceInstanceOrigin1795300052000 } from './migrations/1795300052000-data-source-instance-origin';
import { Passages1795300054000 } from './migrations/1795300054000-passages';
import { RunLimits1795300056000 } from './migrations/1795300056000-run-limits';
import { RunPace1795300057000 } from './migrations/1795300057000-run-pace';
import { CredentialValidation1795300058000 } from './migrations/1795300058000-credential-validation';
import { ChunkRowsWhole1795300060000 } from './migrations/1795300060000-chunk-rows-whole';
import { RunListedPages1795300061000 } from './migrations/1795300061000-run-listed-pages';
import { TextMeasures1795300062000 } from './migrations/1795300062000-text-measures';
import { SightingPriorPlaces1795300063000 } from './migrations/1795300063000-sighting-prior-places';
import { ContentsClearedAt1795300064000 } from './migrations/1795300064000-contents-cleared-at';
import { LoginChangedAt1795300065000 } from './migrations/1795300065000-login-changed-at';
import { AuthorizationRequestsPerUser1795300066000 } from './migrations/1795300066000-authorization-requests-per-user';
import { TooLargeToExtractFailed1795300067000 } from './migrations/1795300067000-too-large-to-extract-failed';
import { SyncRunFiles1795300028000 } from './migrations/1795300028000-sync-run-files';
import { DeletionGuard1795300030000 } from './migrations/1795300030000-deletion-guard';

/** The connector-service owns the `connector` schema. Features add their entities and migrations here. */
export const CONNECTOR_SCHEMA = 'connector';

export const connectorDatabase: ServiceDatabaseOptions = {
  schema: CONNECTOR_SCHEMA,
  entities: [
    CredentialEntity,
    DataSourceEntity,
    DataSourceMemberEntity,
    PickerFolderEntity,
    SyncRunEntity,
    DocumentEntity,
    OAuthProviderEntity,
    ProviderSecretEntity,
    OAuthConnectionEntity,
    ConnectorEventOutboxEntity,
  ],
  migrations: [
    Credentials1795300000000,
    DataSources1795300001000,
    Ingestion1795300002000,
    OAuth1795300010000,
    OneConnectionPerProvider1795300011000,
    DocumentSearch1795300012000,
    PendingExtraction1795300013000,
    SearchOpening1795300014000,
    SearchBetweenVacuums1795300015000,
    SyncSightings1795300016000,
    FileSizeLimit1795300020000,
    DataSourceAccess1795300022000,
    ConnectorEventOutbox1795300024000,
    SearchableRuns1795300026000,
    RunTotals1795300032000,
    SearchCandidates1795300036000,
    SyncRunFiles1795300028000,
    DeletionGuard1795300030000,
    CheaperToast1795300038000,
    SmallGinPendingLists1795300040000,
    TokenRefreshLease1795300042000,
    OAuthBrowserBinding1795300050000,
    DataSourceInstanceOrigin1795300052000,
    Passages1795300054000,
    RunLimits1795300056000,
    RunPace1795300057000,
    CredentialValidation1795300058000,
    ChunkRowsWhole1795300060000,
    RunListedPages1795300061000,
    TextMeasures1795300062000,
    SightingPriorPlaces1795300063000,
    ContentsClearedAt1795300064000,
    LoginChangedAt1795300065000,
    AuthorizationRequestsPerUser1795300066000,
    TooLargeToExtractFailed1795300067000,
  ],
};
