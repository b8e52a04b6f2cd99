import { ErrorResult } from '../components/error-result';

export default function ForbiddenPage() {
  return <ErrorResult status="403" kind="forbidden" />;
}
