// Which screen a route shows; the console and the consumer portal route through the same one.
import type { Route } from '../router';
import { EventDetail } from './events/EventDetail';
import { EventsList } from './events/EventsList';
import { EventTypeDetail } from './event-types/EventTypeDetail';
import { EventTypesList } from './event-types/EventTypesList';
import { NotFound } from './NotFound';
import { SubscriberDetail } from './subscribers/SubscriberDetail';
import { SubscriberForm } from './subscribers/SubscriberForm';
import { SubscribersList } from './subscribers/SubscribersList';

export function Screen({ route }: { route: Route }) {
  switch (route.name) {
    case 'subscribers':
      return <SubscribersList offset={route.offset} />;
    case 'subscriber-new':
      return <SubscriberForm />;
    case 'subscriber':
      return <SubscriberDetail id={route.id} />;
    case 'subscriber-edit':
      return <SubscriberForm id={route.id} />;
    case 'events':
      return <EventsList offset={route.offset} status={route.status} cursor={route.cursor} />;
    case 'event':
      return <EventDetail id={route.id} />;
    case 'event-types':
      return <EventTypesList />;
    case 'event-type':
      return <EventTypeDetail type={route.type} />;
    case 'not-found':
      return <NotFound path={route.path} />;
  }
}
