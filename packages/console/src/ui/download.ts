// Saves a JSON value as a file. The API needs the session's bearer token, so a plain link to the
// endpoint cannot download it: the answer is fetched by script and handed to the browser as a blob.
export function downloadJson(fileName: string, value: unknown): void {
  const url = URL.createObjectURL(new Blob([`${JSON.stringify(value, null, 2)}\n`], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The click has started the download from the blob; the URL is no longer needed once it has run.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
