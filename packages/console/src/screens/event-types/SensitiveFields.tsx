// An event type's sensitive data fields as code chips, or "None" in words (never an empty cell).
export function SensitiveFields({ fields }: { fields: readonly string[] }) {
  if (fields.length === 0) return <span class="muted">None</span>;
  return (
    <>
      {fields.map((field) => (
        <code key={field} class="scope">
          {field}
        </code>
      ))}
    </>
  );
}
