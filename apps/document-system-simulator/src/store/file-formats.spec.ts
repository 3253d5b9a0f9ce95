import mammoth from 'mammoth';
import { TextExtractor } from '../../../connector-service/src/extraction/text-extractor';
import { docxDocument, pdfDocument } from './file-formats';

describe('simulator file formats', () => {
  const extractor = new TextExtractor();
  afterAll(() => extractor.onModuleDestroy());

  it('makes PDFs whose text pdf.js reads, page by page', async () => {
    const pdf = pdfDocument([['Wall type W3', 'fire-rated gypsum assembly UL U419'], ['Page two (notes)']]);
    const result = await extractor.extract(pdf, 'application/pdf', 'A-501.pdf');
    expect(result.status).toBe('Succeeded');
    expect(result.text).toContain('fire-rated gypsum assembly UL U419');
    expect(result.text).toContain('Page two (notes)');
  });

  it('makes DOCX files mammoth reads', async () => {
    const docx = docxDocument(['Seismic notes', 'seismic bracing detail SB-7 & anchors <M12>']);
    expect((await mammoth.extractRawText({ buffer: docx })).value).toContain(
      'seismic bracing detail SB-7 & anchors <M12>',
    );
  });
});
