import { TextExtractor } from '../../../connector-service/src/extraction/text-extractor';
import { generatedPdf, rng } from './generated-content';

describe('generated PDFs', () => {
  const extractor = new TextExtractor();
  afterAll(() => extractor.onModuleDestroy());

  it('are valid PDFs whatever size is asked, even smaller than the smallest valid PDF', async () => {
    const random = rng(20261123);
    const asked = Array.from({ length: 500 }, () => Math.floor(random() * 3000));
    const failures: string[] = [];
    for (const [seed, size] of asked.entries()) {
      const result = await extractor.extract(generatedPdf(size, seed), 'application/pdf', `generated-${seed}.pdf`);
      if (result.status !== 'Succeeded' || !result.text.includes(`Generated sheet ${seed}`))
        failures.push(`size ${size}, seed ${seed}: ${result.status} ${result.error ?? ''}`);
    }
    expect(failures).toEqual([]);
  }, 120000);
});
