import type { ReactNode } from 'react';

/**
 * Where a layout puts its parts around the page area. Every layout fills the same frame, so switching
 * layouts never moves the page area in the tree and the kept-alive pages survive the switch.
 */
export interface Arrangement {
  /** A full-width bar above everything (the common layout's header). */
  top?: ReactNode;
  /** Left of the page area: side bar, column bars, or the mobile drawer. */
  side?: ReactNode;
  /** The header above the page area (and above the tabs). */
  header: ReactNode;
}

export interface ArrangementContext {
  isMobile: boolean;
}
