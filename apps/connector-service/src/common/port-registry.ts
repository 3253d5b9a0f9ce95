/**
 * Where a feature registers its side of a port at start, so that a feature it depends on can call it back without
 * importing it (an import circle otherwise). Each port's registry is a subclass: Nest injects it by its class.
 */
export abstract class PortRegistry<Port> {
  private port?: Port;

  /** `missing` says which port and which module is not loaded, for the error when none registered. */
  protected constructor(private readonly missing: string) {}

  register(port: Port): void {
    this.port = port;
  }

  get registered(): Port {
    if (!this.port) throw new Error(`No ${this.missing} registered`);
    return this.port;
  }
}
