/** How a promise stood after waiting for it at most `ms`. */
export type Settled = 'done' | 'failed' | 'pending';

export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<Settled>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  try {
    return await Promise.race([
      promise.then(
        (): Settled => 'done',
        (): Settled => 'failed',
      ),
      pending,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
