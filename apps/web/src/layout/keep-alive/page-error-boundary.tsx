import { Component, type ReactNode } from 'react';
import { logError } from '../../lib/error-log';
import { PageCrash } from '../page-crash';

/**
 * Keeps a page's failure to its own tab: the shell and the other kept pages stay as they are, the error goes
 * to the error log (SPEC §8), and the page can be drawn again.
 */
export class PageErrorBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error ?? new Error('unknown error') };
  }

  override componentDidCatch(error: unknown) {
    logError(error);
  }

  override render() {
    if (this.state.error) return <PageCrash error={this.state.error} onRetry={() => this.setState({ error: null })} />;
    return this.props.children;
  }
}
