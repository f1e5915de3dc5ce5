// The portal's pure rules: which page is the portal, where a link carries its code, which screens it offers.
import { describe, expect, it } from 'vitest';
import { codeFromHash, isPortalPath, portalRoute } from '../../src/portal/portal-page';
import { parseRoute } from '../../src/router';
import { sendableTypes } from '../../src/screens/subscribers/SendTestEvent';
import { portalCapabilities, capabilitiesOf, NOT_IN_PORTAL_REASON } from '../../src/session/capabilities';

const CODE = `hpl_${'a'.repeat(43)}`;

describe('portal page', () => {
  it('is /console/portal/ exactly', () => {
    expect(isPortalPath('/console/portal/')).toBe(true);
    for (const path of ['/console/', '/console/portal', '/console/portal/x', '/portal/']) expect(isPortalPath(path), path).toBe(false);
  });

  it('reads the code from #code= only, and only in its shape', () => {
    expect(codeFromHash(`#code=${CODE}`)).toBe(CODE);
    for (const hash of ['', '#/subscribers', `#code=${CODE}&x=1`, '#code=hrd_abc', '#code=', `#/events?code=${CODE}`]) {
      expect(codeFromHash(hash), hash).toBeUndefined();
    }
  });

  it('offers endpoints and events; every other screen is not found', () => {
    for (const hash of ['#/subscribers', '#/subscribers/a', '#/subscribers/a/edit', '#/events', '#/events/e1']) {
      expect(portalRoute(parseRoute(hash)), hash).toEqual(parseRoute(hash));
    }
    for (const hash of ['#/subscribers/new', '#/event-types', '#/event-types/order.paid']) {
      expect(portalRoute(parseRoute(hash)).name, hash).toBe('not-found');
    }
  });

  it('refuses creating, deleting and previewing filters, whatever the scopes', () => {
    const can = portalCapabilities(capabilitiesOf(['dp:webhook_subscriber:manage', 'dp:delivery:manage', 'dp:event:read'], false));
    expect(can.createSubscriber).toEqual({ allowed: false, reason: NOT_IN_PORTAL_REASON });
    expect(can.deleteSubscriber.allowed).toBe(false);
    expect(can.previewFilter.allowed).toBe(false);
    expect(can.updateSubscriber.allowed).toBe(true);
    expect(can.manageDeliveries.allowed).toBe(true);
  });
});

describe('test events', () => {
  it('offers the types with an example, never herald.*', () => {
    expect(
      sendableTypes([
        { type: 'order.paid', sensitive: [], example: { total: 1 } },
        { type: 'order.refunded', sensitive: [] },
        { type: 'herald.delivery_stalled', sensitive: [], example: {} },
      ]),
    ).toEqual(['order.paid']);
  });
});
