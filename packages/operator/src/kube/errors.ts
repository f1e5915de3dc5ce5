// Kubernetes client errors, described for logs without response bodies that could carry data.
import { ApiException } from '@kubernetes/client-node';

export function kubeStatusCode(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : undefined;
}

export function describeKubeError(error: unknown): string {
  if (error instanceof ApiException) return `HTTP ${error.code}: ${kubeMessage(error.body)}`;
  return error instanceof Error ? error.message : String(error);
}

function kubeMessage(body: unknown): string {
  if (typeof body === 'string') {
    try {
      const parsed = JSON.parse(body) as { message?: unknown };
      return typeof parsed.message === 'string' ? parsed.message : '';
    } catch {
      return '';
    }
  }
  if (body && typeof body === 'object' && 'message' in body && typeof body.message === 'string') return body.message;
  return '';
}
