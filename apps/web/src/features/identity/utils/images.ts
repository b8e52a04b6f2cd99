/** Which i18n label an entry of `IdentityView.images` gets, whatever suffix the server files it under. */
export function imageLabelKey(name: string): 'idFront' | 'idBack' | 'licence' | null {
  const base = name.replace(/Key$/, '').toLowerCase();
  if (base === 'idfront' || base === 'front') return 'idFront';
  if (base === 'idback' || base === 'back') return 'idBack';
  if (base === 'licence' || base === 'license') return 'licence';
  return null;
}

const ORDER = ['idFront', 'idBack', 'licence'];

/** Images in reading order: front, back, licence, then anything else by name. */
export function orderedImages(images: Record<string, string>): Array<{ name: string; url: string }> {
  const rank = (n: string) => {
    const i = ORDER.indexOf(imageLabelKey(n) ?? '');
    return i < 0 ? ORDER.length : i;
  };
  return Object.entries(images)
    .filter(([, url]) => typeof url === 'string' && url.length > 0)
    .map(([name, url]) => ({ name, url }))
    .sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
}
