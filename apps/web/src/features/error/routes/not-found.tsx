import { ErrorResult } from '../components/error-result';

export default function NotFoundPage() {
  return <ErrorResult status="404" kind="notFound" />;
}
