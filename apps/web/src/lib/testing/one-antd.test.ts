import { message } from 'antd';
import staticMessage from 'antd/es/message';
import { expect, it } from 'vitest';

// vitest.config.ts points 'antd/es/…' at antd's CommonJS build, the one Node loads for 'antd': two builds side by
// side raced in Node 20's require(esm) and failed a page's code now and then
it("loads one build of antd in tests: 'antd' and 'antd/es/…' are the same modules", () => {
  expect(staticMessage).toBe(message);
});
