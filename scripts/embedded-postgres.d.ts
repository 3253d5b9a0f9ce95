export interface EmbeddedPostgresHandle {
  adminUrl: string;
  /** Where the data lives: the one asked for, or one under os.tmpdir() that user postgres can reach. */
  dataDir: string;
  stop(): Promise<void>;
}
export function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  persistent?: boolean;
}): Promise<EmbeddedPostgresHandle>;
