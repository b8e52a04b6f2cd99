import { theme } from 'antd';
import { describe, expect, it } from 'vitest';
import { CHART_TOKEN_KEYS, chartTheme, mapScale, type ChartTokens } from './theme';

const tokensOf = (algorithm: typeof theme.defaultAlgorithm): ChartTokens => {
  const token = theme.getDesignToken({ algorithm, token: { colorPrimary: '#4e88f3' } });
  return Object.fromEntries(CHART_TOKEN_KEYS.map((k) => [k, token[k]])) as ChartTokens;
};

describe('chart theme from antd tokens', () => {
  const light = chartTheme(tokensOf(theme.defaultAlgorithm));
  const dark = chartTheme(tokensOf(theme.darkAlgorithm));

  it('leads the palette with the theme colour and lets the card show through', () => {
    expect(light.color[0]).toBe('#4e88f3');
    expect(light.backgroundColor).toBe('transparent');
    expect(new Set(light.color).size).toBe(light.color.length);
  });

  it('uses light text on dark surfaces and dark text on light ones', () => {
    const brightness = (c: string) => {
      const m = c.match(/rgba?\((\d+),\s*(\d+),\s*(\d+)/) ?? c.match(/^#(..)(..)(..)/);
      if (!m) throw new Error(`unreadable colour ${c}`);
      const [r, g, b] = m.slice(1, 4).map((x) => (c.startsWith('#') ? parseInt(x, 16) : Number(x)));
      return (r + g + b) / 3;
    };
    expect(brightness(dark.tooltip.textStyle.color)).toBeGreaterThan(128);
    expect(brightness(light.tooltip.textStyle.color)).toBeLessThan(128);
    expect(dark.tooltip.backgroundColor).not.toBe(light.tooltip.backgroundColor);
    expect(dark.map.itemStyle.areaColor).not.toBe(light.map.itemStyle.areaColor);
  });

  it('colours the map from the faintest tint to the theme colour', () => {
    const tokens = tokensOf(theme.defaultAlgorithm);
    expect(mapScale(tokens)).toEqual([tokens.colorPrimaryBg, '#4e88f3']);
  });
});
