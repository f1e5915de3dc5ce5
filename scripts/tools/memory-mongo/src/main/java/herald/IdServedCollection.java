package herald;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.bson.Document;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A collection that serves from the `_id` index any filter naming `_id` (a value or `$in`), and a
 * `$or` each of whose branches does, then checks the whole filter on the documents found, as
 * MongoDB does. The memory backend on its own uses an index only when the filter names exactly
 * the index's fields, so a conditional write by `_id` (`{_id, status}`) would read every document
 * of the collection.
 */
final class IdServedCollection extends MemoryCollection {
  private static final String ID = "_id";
  private Index<Integer> idIndex;

  IdServedCollection(MongoDatabase database, String name, CollectionOptions options, CursorRegistry cursors) {
    super(database, name, options, cursors);
  }

  @Override
  public synchronized void addIndex(Index<Integer> index) {
    super.addIndex(index);
    if (index.getKeys().size() == 1 && ID.equals(index.getKeys().get(0).getKey()) && index.isUnique()) idIndex = index;
  }

  @Override
  public synchronized void dropIndex(String indexName) {
    super.dropIndex(indexName);
    if (idIndex != null && idIndex.getName().equals(indexName)) idIndex = null;
  }

  @Override
  protected QueryResult queryDocuments(Document query, Document orderBy, int skip, int limit, int batchSize, Document fieldSelector) {
    Set<Integer> positions = idIndex == null ? null : idPositions(query);
    if (positions != null) return matchDocuments(query, positions, orderBy, skip, limit, batchSize, fieldSelector);
    return super.queryDocuments(query, orderBy, skip, limit, batchSize, fieldSelector);
  }

  /** The positions the `_id` index gives for `filter`, or null when it does not name `_id` throughout. */
  private Set<Integer> idPositions(Document filter) {
    Set<Integer> positions = new LinkedHashSet<>();
    if (filter.containsKey(ID)) {
      Document byId = new Document(ID, filter.get(ID));
      if (!idIndex.canHandle(byId)) return null;
      idIndex.getPositions(byId).forEach(positions::add);
      return positions;
    }
    if (filter.size() != 1 || !(filter.get("$or") instanceof List<?> branches)) return null;
    for (Object branch : branches) {
      Set<Integer> found = branch instanceof Document document ? idPositions(document) : null;
      if (found == null) return null;
      positions.addAll(found);
    }
    return positions;
  }
}
