import sharp from 'sharp';

/**
 * Document images for the OCR tests and benchmark, rendered with sharp from an SVG in the installed font
 * "WenQuanYi Micro Hei" (fc-list): Chinese and English lines on white, 600×300.
 */
export const OCR_LINES = ['云打印控制台 测试', 'Cloud Print Receipt', '订单 Order 12345'];

function svg(lines: string[], width: number, height: number): Buffer {
  const step = height / (lines.length + 1);
  const text = lines
    .map(
      (l, i) =>
        `<text x="30" y="${Math.round(step * (i + 1) + 12)}" font-family="WenQuanYi Micro Hei" font-size="36">${l}</text>`,
    )
    .join('');
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<rect width="100%" height="100%" fill="white"/>${text}</svg>`,
  );
}

/** A clean scan: the lines as rendered. */
export function documentImage(lines = OCR_LINES, format: 'png' | 'jpeg' | 'webp' = 'png'): Promise<Buffer> {
  return sharp(svg(lines, 600, 300))
    .toFormat(format)
    .toBuffer();
}

/**
 * A photo-like version: slightly rotated, greyish paper with noise, a little blur, saved as JPEG. The noise is
 * deterministic (a fixed pseudo-random sequence), so a test sees the same image every run.
 */
export async function photoImage(lines = OCR_LINES): Promise<Buffer> {
  const width = 600;
  const height = 300;
  const noise = Buffer.alloc(width * height);
  let s = 12345;
  for (let i = 0; i < noise.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    noise[i] = s % 100 < 6 ? 140 + (s % 80) : 255;
  }
  const noiseLayer = await sharp(noise, { raw: { width, height, channels: 1 } })
    .toColourspace('b-w')
    .png()
    .toBuffer();
  const base = await sharp(svg(lines, width, height))
    .flatten({ background: '#f2efe8' })
    .composite([{ input: noiseLayer, blend: 'multiply' }])
    .png()
    .toBuffer();
  return sharp(base)
    .rotate(2.5, { background: '#e9e5dc' })
    .resize(width, height, { fit: 'fill' })
    .blur(0.7)
    .modulate({ brightness: 0.95 })
    .jpeg({ quality: 80 })
    .toBuffer();
}
