import { childrenOf } from '../../test/support/processes';
import { AnswerParser, AnswerUnreadable } from './answer-parser';

/** About `kib` KiB of a listing with `items` folders, as the chunks a socket would give (each its own buffer). */
function answer(items: number, kib: number, tag = 'f'): Uint8Array[] {
  const list = Array.from({ length: items }, (_, i) => ({
    kind: 'folder',
    id: `${tag}${i}`,
    name: 'N',
    parentId: 'p',
  }));
  const text = JSON.stringify({ items: list, nextCursor: null, padding: 'x'.repeat(kib * 1024) });
  const bytes = Buffer.from(text);
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += 64 * 1024) chunks.push(new Uint8Array(bytes.subarray(at, at + 64 * 1024)));
  return chunks;
}

/** 660,000 objects holding an array each: 1.98 million values, under MAX_ANSWER_VALUES; about a second to parse. */
function costly(): Uint8Array[] {
  return [new Uint8Array(Buffer.from(`{"items":[],"junk":[${'{"a":[]},'.repeat(660_000)}{}]}`))];
}

/**
 * One folder whose object holds 1.5 million distinct keys (13 MB, under MAX_ANSWER_VALUES): V8's JSON parser
 * outgrows a 128 MB heap inside native code, where a worker thread's limit ended the whole process.
 */
function manyKeys(): Uint8Array[] {
  const keys = Array.from({ length: 1_500_000 }, (_, i) => `"${i.toString(36)}":1`);
  return [new Uint8Array(Buffer.from(`{"items":[{${keys.join(',')}}],"nextCursor":null}`))];
}

describe(AnswerParser.name, () => {
  let sut: AnswerParser;
  afterEach(() => sut.close());

  it('reads a large answer in a process of its own as it reads a small one in place, and applies the item limit there', async () => {
    sut = new AnswerParser({ processes: 1 });
    const small = await sut.read(answer(3, 1), 'children', 10, 'a');
    const large = await sut.read(answer(3, 1024), 'children', 10, 'a');
    expect(large).toEqual(small);
    expect(large).toMatchObject({ ok: true, value: { items: [{ id: 'f0' }, { id: 'f1' }, { id: 'f2' }] } });
    expect(await sut.read(answer(11, 1024), 'children', 10, 'a')).toEqual({
      ok: false,
      problem: 'TooManyItems',
      items: 11,
    });
  }, 60_000);

  it("takes waiting answers in turn by lane: one lane's queue does not hold another's answer behind it", async () => {
    sut = new AnswerParser({ processes: 1 });
    const done: string[] = [];
    const read = (lane: string, tag: string) =>
      sut.read(answer(1, 2048, tag), 'children', 10, lane).then(() => done.push(tag));
    const hostile = ['h1', 'h2', 'h3', 'h4', 'h5'].map((tag) => read('hostile', tag));
    await Promise.all([...hostile, read('other', 'o1')]);
    // h1 was being read when o1 came; then each lane in turn: h2, o1. In one queue o1 would have been last.
    expect(done.slice(0, 3)).toEqual(['h1', 'h2', 'o1']);
  }, 60_000);

  it('drops an answer still waiting when its request gives up, and ends a parse over its heap', async () => {
    sut = new AnswerParser({ processes: 1, maxHeapMb: 32 });
    const abandoned = new AbortController();
    const first = sut.read(answer(1, 2048), 'children', 10, 'a');
    const second = sut.read(answer(1, 2048), 'children', 10, 'a', abandoned.signal);
    abandoned.abort();
    await expect(second).rejects.toBeInstanceOf(AnswerUnreadable);
    await expect(first).resolves.toMatchObject({ ok: true });
    // More than 32 MB of heap.
    await expect(sut.read(costly(), 'children', 10, 'a')).rejects.toThrow(/needed over 32 MB/);
    expect(await sut.read(answer(2, 1024), 'children', 10, 'a')).toMatchObject({ ok: true }); // a new process
  }, 60_000);

  it("fails only the answer whose parse outgrows the heap inside V8's JSON parser, and reads the next", async () => {
    // Time enough to reach the heap limit at the parser's low priority on a machine busy with other suites
    // (the default 30 s ran out first there): this case is about memory, not time.
    sut = new AnswerParser({ processes: 1, timeoutMs: 150_000 });
    await expect(sut.read(manyKeys(), 'children', 10, 'a')).rejects.toThrow(/needed over 128 MB/);
    expect(await sut.read(answer(2, 1024), 'children', 10, 'a')).toMatchObject({ ok: true });
  }, 200_000);

  // A process ended while busy in JSON.parse must be gone once the parser is closed: one still running
  // would outlive the connector.
  it('has stopped every process it started once closed, also one it ended for its time limit mid-parse', async () => {
    sut = new AnswerParser({ processes: 1, timeoutMs: 50 });
    await expect(sut.read(costly(), 'children', 10, 'a')).rejects.toThrow(/took over 0.05 s/);
    await sut.close();
    expect(childrenOf(process.pid)).toEqual([]);
  }, 60_000);
});
