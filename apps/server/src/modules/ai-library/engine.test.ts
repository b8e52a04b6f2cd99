import { describe, expect, it } from 'vitest';
import { tidyLine } from './engine.ts';

describe('tidyLine', () => {
  it('drops the spaces tesseract puts between Chinese characters, keeps those between words', () => {
    expect(tidyLine('云 打印 控制 台 测试')).toBe('云打印控制台测试');
    expect(tidyLine('订单 Order 12345 ')).toBe('订单 Order 12345');
    expect(tidyLine('Cloud  Print\tReceipt')).toBe('Cloud Print Receipt');
  });
});
