package herald;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.AbstractMongoCollection;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.QueryMatcher;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.bson.Document;
import java.lang.reflect.Field;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A collection that reads through its indexes as MongoDB does, then checks the whole filter on the
 * documents found. The memory backend on its own uses an index only when the filter names exactly
 * the index's fields, and keeps no secondary index, so a conditional write by `_id` (`{_id,
 * status}`), a list page or a due read would read every document of the collection.
 * - Any filter naming `_id` (a value or `$in`), and a `$or` each of whose branches does, is served
 *   from the `_id` index; a document found through such a `$or` is checked against the branches
 *   naming its `_id` only (IdBranchMatcher).
 * - Otherwise the secondary index (OrderedIndex) that fixes the most leading fields is walked; in
 *   the sort's order when it serves the sort, so a `limit` stops the walk.
 * - An aggregation whose first stage is a `$match` reads the collection through that filter; one
 *   that only counts what such a filter matches is answered from an index when the filter is
 *   equalities on its leading fields (MongoDB's COUNT_SCAN).
 */
final class IndexServedCollection extends MemoryCollection {
  private static final String ID = "_id";
  /** The leading `$match` of the aggregation this thread is running, and its collection. */
  private static final ThreadLocal<Object[]> AGGREGATION = new ThreadLocal<>();
  private Index<Integer> idIndex;

  IndexServedCollection(MongoDatabase database, String name, CollectionOptions options, CursorRegistry cursors) {
    super(database, name, options, cursors);
    useMatcher(new IdBranchMatcher());
  }

  /** The memory backend keeps its matcher in a private field and offers no way to choose another. */
  private void useMatcher(QueryMatcher matcher) {
    try {
      Field field = AbstractMongoCollection.class.getDeclaredField("matcher");
      field.setAccessible(true);
      field.set(this, matcher);
    } catch (ReflectiveOperationException unsupported) {
      throw new IllegalStateException("mongo-java-server changed: no matcher field to replace", unsupported);
    }
  }

  static void startAggregation(String collectionName, Document match) {
    AGGREGATION.set(match == null ? null : new Object[] {collectionName, match});
  }

  static void endAggregation() {
    AGGREGATION.remove();
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

  /** The aggregation's input: this collection read through the pipeline's leading `$match`, which still runs. */
  @Override
  public Stream<Document> queryAllAsStream() {
    Object[] aggregation = AGGREGATION.get();
    if (aggregation == null || !getCollectionName().equals(aggregation[0])) return super.queryAllAsStream();
    AGGREGATION.remove();
    return handleQueryAsStream((Document) aggregation[1]);
  }

  /** How many documents match `filter`, from an index alone (OrderedIndex.count); null when none can tell. */
  synchronized Long countFromIndex(Document filter) {
    for (Index<Integer> index : getIndexes()) {
      Long count = index instanceof OrderedIndex ordered ? ordered.count(filter) : null;
      if (count != null) return count;
    }
    return null;
  }

  @Override
  protected QueryResult queryDocuments(Document query, Document orderBy, int skip, int limit, int batchSize, Document fieldSelector) {
    Set<Integer> positions = idIndex == null ? null : idPositions(query);
    if (positions != null) return matchDocuments(query, positions, orderBy, skip, limit, batchSize, fieldSelector);
    OrderedIndex.Plan best = null;
    for (Index<Integer> index : getIndexes()) {
      OrderedIndex.Plan plan = index instanceof OrderedIndex ordered ? ordered.plan(query, orderBy) : null;
      if (plan != null && (best == null || plan.score() > best.score())) best = plan;
    }
    if (best != null) return matchDocuments(query, best.positions(), best.sorted() ? null : orderBy, skip, limit, batchSize, fieldSelector);
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
