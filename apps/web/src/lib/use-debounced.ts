import { useEffect, useState } from 'react';

/** `value` once it has stayed the same for `delay` ms (the menu search's suggestions, SPEC §9). */
export function useDebounced<T>(value: T, delay: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setDebounced(value), delay);
    return () => clearTimeout(id);
  }, [value, delay]);
  return debounced;
}
