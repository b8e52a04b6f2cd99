import { Outlet } from 'react-router';
import { ConsoleProviders } from './console-providers';

/** The screens drawn with antd, under one set of its providers (the sign-in pages stand outside). */
export default function ConsoleLayout() {
  return (
    <ConsoleProviders>
      <Outlet />
    </ConsoleProviders>
  );
}
