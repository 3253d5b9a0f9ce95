export interface EmbeddedPostgresHandle {
  adminUrl: string;
  stop(): Promise<void>;
}
export function startEmbeddedPostgres(options: { dataDir: string; port: number; persistent?: boolean }): Promise<EmbeddedPostgresHandle>;
