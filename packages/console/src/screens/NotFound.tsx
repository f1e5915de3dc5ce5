import { href } from '../router';
import { PageHeading } from '../ui/PageHeading';

export function NotFound({ path }: { path: string }) {
  return (
    <>
      <PageHeading focusKey={path}>Nothing here</PageHeading>
      <p>
        The console has no page at <code>{path}</code>. Go to the <a href={href({ name: 'subscribers', offset: 0 })}>subscribers</a> or the{' '}
        <a href={href({ name: 'events', offset: 0 })}>events</a>.
      </p>
    </>
  );
}
