// The JavaScript a first visit to /console/ must download before the console runs: the entry
// module(s) index.html names and the chunks it preloads, measured gzipped (as served compressed by
// any proxy or CDN in front of the host).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface BundleReport {
  files: { path: string; bytes: number; gzipBytes: number }[];
  gzipBytes: number;
  inlineScripts: number;
  /** Whether the bundle carries development-only JSX source locations. */
  development: boolean;
}

export function initialJavaScript(distDir: string, base = '/console/'): BundleReport {
  const html = readFileSync(join(distDir, 'index.html'), 'utf8');
  const urls = new Set<string>();
  let inlineScripts = 0;
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    const src = /\bsrc="([^"]+)"/.exec(match[1] ?? '')?.[1];
    if (src) urls.add(src);
    else if ((match[2] ?? '').trim()) inlineScripts += 1;
  }
  for (const match of html.matchAll(/<link\b[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)) if (match[1]) urls.add(match[1]);
  let development = false;
  const files = [...urls].map((url) => {
    const path = url.startsWith(base) ? url.slice(base.length) : url.replace(/^\//, '');
    const content = readFileSync(join(distDir, path));
    if (/fileName:|lineNumber:/.test(content.toString('utf8'))) development = true;
    return { path, bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
  });
  return { files, gzipBytes: files.reduce((sum, file) => sum + file.gzipBytes, 0), inlineScripts, development };
}
