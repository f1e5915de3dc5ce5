// Why a connection with a client certificate closed. Under TLS 1.3 the receiver checks the client
// certificate only after the client has finished its side of the handshake: its refusal (a TLS
// alert) arrives once the request is already on its way, and undici then reports the connection as
// closed by the other side ("other side closed"), dropping the alert. The connectors of a pool that
// presents a certificate record the TLS alerts their sockets raise, so that the sender can report
// the cause (class TLS) instead of a reset.
import type { buildConnector } from 'undici';

export interface TlsAlertLog {
  /** The latest TLS error a socket of this pool raised at or after `since` (performance.now()). */
  since(since: number): Error | undefined;
}

const isTlsError = (error: NodeJS.ErrnoException): boolean =>
  typeof error.code === 'string' && (error.code.startsWith('ERR_SSL_') || error.code.startsWith('ERR_TLS_'));

/** `connector`, with the TLS errors of the sockets it makes recorded in the returned log. */
export function watchTlsAlerts(connector: buildConnector.connector): { connector: buildConnector.connector; log: TlsAlertLog } {
  let last: { error: Error; at: number } | undefined;
  const watched: buildConnector.connector = (options, callback) => {
    connector(options, (error, socket) => {
      if (error === null) {
        socket.on('error', (raised: NodeJS.ErrnoException) => {
          if (isTlsError(raised)) last = { error: raised, at: performance.now() };
        });
        callback(null, socket);
      } else callback(error, null);
    });
  };
  return { connector: watched, log: { since: (since) => (last && last.at >= since ? last.error : undefined) } };
}
