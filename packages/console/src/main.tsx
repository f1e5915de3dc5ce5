import { render } from 'preact';
import { App } from './App';
import { isPortalPath } from './portal/portal-page';
import { PortalApp } from './portal/PortalApp';
import './styles.css';

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  // The host serves the same page at /console/portal/ for the consumer portal (docs/console.md).
  render(isPortalPath(window.location.pathname) ? <PortalApp /> : <App />, root);
}
