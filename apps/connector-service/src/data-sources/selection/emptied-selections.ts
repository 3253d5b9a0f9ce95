import { Injectable, Logger } from '@nestjs/common';
import { PortRegistry } from '../../common/port-registry';

/** What must follow, once committed, a data source's selection left selecting nothing or discarded with its login. */
export interface EmptiedSelectionSettler {
  /** Does nothing when the data source selects something again (and no former login's documents are left), or is gone. */
  settle(dataSourceId: string): Promise<void>;
}

/**
 * Where sync registers what becomes of a data source that selects nothing any more (its run stops, its
 * documents go), so the selection does not depend on sync, which depends on data sources.
 */
@Injectable()
export class EmptiedSelections extends PortRegistry<EmptiedSelectionSettler> {
  private readonly logger = new Logger(EmptiedSelections.name);

  constructor() {
    super('EmptiedSelectionSettler: the sync engine is not loaded');
  }

  /**
   * After the commit that emptied the selection or changed the login. The change is saved whatever becomes of this:
   * should it fail, the sync sweep settles the data source, as it does what a crash left unsettled.
   */
  async settle(dataSourceId: string): Promise<void> {
    const settler = this.registered;
    await settler
      .settle(dataSourceId)
      .catch((error: Error) =>
        this.logger.warn({ dataSourceId, error: error.message }, 'emptied selection left for the sync sweep to settle'),
      );
  }
}
