import { useCallback, useContext } from 'react';
import { UNSAFE_NavigationContext } from 'react-router';

export type StableNavigate = (to: string, options?: { replace?: boolean }) => void;

/**
 * `navigate` for the shell's absolute paths without `useNavigate`, whose route context changes at every
 * navigation and so re-renders each caller (every menu, tab and header tool) on every tab switch. The
 * router's navigator is the same object for the router's whole life.
 */
export function useStableNavigate(): StableNavigate {
  const { navigator } = useContext(UNSAFE_NavigationContext);
  return useCallback((to, options) => (options?.replace ? navigator.replace(to) : navigator.push(to)), [navigator]);
}
