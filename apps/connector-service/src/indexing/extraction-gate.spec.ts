import { ExtractionGate } from './extraction-gate';

const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe(ExtractionGate.name, () => {
  it('puts back every extraction of a tenant that waited a second for its sync while another tenant wants the slots, and runs none of them', async () => {
    const gate = new ExtractionGate();
    let stepEnds = () => {};
    const step = gate.first('a', () => new Promise<void>((end) => (stepEnds = end)));
    const outcomes: string[] = [];
    const extraction = (tenant: string, wanted: boolean) =>
      gate
        .extraction(
          tenant,
          async () => 'ran',
          async () => 'put back',
          async () => wanted,
        )
        .then((outcome) => outcomes.push(`${tenant} ${outcome}`));
    const waiting = [extraction('a', true), extraction('a', true), extraction('a', true)];
    await after(500);
    expect(outcomes).toEqual([]); // not before a second of waiting: a short sync's own text is next
    await Promise.all(waiting);
    expect(outcomes).toEqual(['a put back', 'a put back', 'a put back']);
    // Another tenant's, with no sync step of its in hand, runs at once.
    stepEnds();
    await step;
    await extraction('b', false);
    expect(outcomes.at(-1)).toBe('b ran');
  });

  it("puts back at once an extraction that comes when its tenant's sync has held the gate a second and another tenant wants the slot", async () => {
    const gate = new ExtractionGate();
    let stepEnds = () => {};
    const step = gate.first('a', () => new Promise<void>((end) => (stepEnds = end)));
    await after(1100); // a long sync: none of its extractions came meanwhile
    const came = Date.now();
    const outcome = await gate.extraction(
      'a',
      async () => 'ran',
      async () => 'put back',
      async () => true,
    );
    expect(outcome).toBe('put back');
    expect(Date.now() - came).toBeLessThan(200);
    stepEnds();
    await step;
  });

  it('asks again only once its last question was answered (Redis away: questions would pile up)', async () => {
    const gate = new ExtractionGate();
    let stepEnds = () => {};
    const step = gate.first('a', () => new Promise<void>((end) => (stepEnds = end)));
    let asked = 0;
    const unanswered = () => {
      asked++;
      return new Promise<boolean>(() => {});
    };
    const waiting = gate.extraction(
      'a',
      async () => 'ran',
      async () => 'put back',
      unanswered,
    );
    await after(1600);
    expect(asked).toBe(1);
    stepEnds();
    await step;
    expect(await waiting).toBe('ran');
  });
});
