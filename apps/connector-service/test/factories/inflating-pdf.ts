import { deflateSync } from 'node:zlib';

/**
 * A PDF of a few hundred KB whose one page (its text: "door D-12") has a content stream that inflates to
 * `mb` MiB: pdf.js holds it in a typed array, outside the heap.
 */
export function inflatingPdf(mb: number): Buffer {
  const content = deflateSync(
    Buffer.concat([Buffer.from('BT /F1 11 Tf 56 760 Td (door D-12) Tj ET\n'), Buffer.alloc(mb << 20, ' ')]),
  );
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    Buffer.concat([
      Buffer.from(`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`),
      content,
      Buffer.from('\nendstream'),
    ]),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const parts = [Buffer.from('%PDF-1.4\n')];
  const offsets = objects.map((object, i) => {
    const offset = Buffer.concat(parts).length;
    parts.push(Buffer.from(`${i + 1} 0 obj\n`), Buffer.from(object), Buffer.from('\nendobj\n'));
    return offset;
  });
  const xref = Buffer.concat(parts).length;
  const table = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  parts.push(
    Buffer.from(
      `xref\n0 6\n0000000000 65535 f \n${table}trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
    ),
  );
  return Buffer.concat(parts);
}
