import NProgress from 'nprogress';
import { useEffect } from 'react';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { BootCrash } from '../components/lite/boot-screens';
import { logError } from '../lib/error-log';

/** Last line of defence for what threw outside a kept page (the shell, the guard): log it, offer a reload. */
export function RouteError() {
  const error = useRouteError();
  useEffect(() => {
    logError(isRouteErrorResponse(error) ? new Error(`${error.status} ${error.statusText}`) : error);
    // the failed navigation never went idle in the root route, which would have ended the bar
    NProgress.done();
  }, [error]);
  return <BootCrash error={error} />;
}
