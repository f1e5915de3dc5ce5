package herald;

import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.DatabaseResolver;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;
import io.netty.channel.Channel;
import java.util.List;

/**
 * The memory backend, with collections that serve filters from their indexes as MongoDB does
 * (IndexServedCollection): the `_id` index and secondary indexes kept in key order (OrderedIndex).
 */
final class IndexServedBackend extends MemoryBackend {
  /** The writes one command may carry, as MongoDB (since 3.6) announces it. */
  private static final int MAX_WRITE_BATCH_SIZE = 100_000;

  /**
   * The handshake announces MongoDB's limit on writes per command: with mongo-java-server's own
   * (1,000) the driver would split an insert of a batch's rows into commands where MongoDB takes one.
   */
  @Override
  public Document handleCommand(Channel channel, String databaseName, String command, Document query) {
    Document response = super.handleCommand(channel, databaseName, command, query);
    if (command.equalsIgnoreCase("ismaster") || command.equalsIgnoreCase("hello")) response.put("maxWriteBatchSize", MAX_WRITE_BATCH_SIZE);
    return response;
  }

  @Override
  public MemoryDatabase openOrCreateDatabase(String databaseName) {
    return new MemoryDatabase(databaseName, getCursorRegistry()) {
      @Override
      protected MemoryCollection openOrCreateCollection(String collectionName, CollectionOptions options) {
        return new IndexServedCollection(this, collectionName, options, cursorRegistry);
      }

      @Override
      protected Index<Integer> openOrCreateSecondaryIndex(String collectionName, String indexName, List<IndexKey> keys, boolean sparse) {
        return new OrderedIndex(indexName, keys);
      }

      @Override
      public Document handleCommand(Channel channel, String command, Document query, DatabaseResolver databaseResolver, Oplog oplog) {
        if (!"aggregate".equalsIgnoreCase(command)) return super.handleCommand(channel, command, query, databaseResolver, oplog);
        String collectionName = String.valueOf(query.get(command));
        Document counted = countOnly(query.get("pipeline"));
        if (counted != null && resolveCollection(collectionName, false) instanceof IndexServedCollection collection) {
          Long count = collection.countFromIndex(counted);
          if (count != null) {
            List<Document> batch = count == 0 ? List.of() : List.of(new Document("_id", 1).append("n", count));
            Document cursor = new Document("id", 0L).append("ns", getFullCollectionNamespace(collectionName)).append("firstBatch", batch);
            return new Document("cursor", cursor).append("ok", 1.0);
          }
        }
        IndexServedCollection.startAggregation(collectionName, leadingMatch(query.get("pipeline")));
        try {
          return super.handleCommand(channel, command, query, databaseResolver, oplog);
        } finally {
          IndexServedCollection.endAggregation();
        }
      }
    };
  }

  /**
   * The filter of a pipeline that only counts what it matches, `[{$match}, {$group: {_id: 1, n:
   * {$sum: 1}}}]` (the driver's `countDocuments`), else null.
   */
  private static Document countOnly(Object pipeline) {
    Document filter = leadingMatch(pipeline);
    if (filter == null || ((List<?>) pipeline).size() != 2 || !(((List<?>) pipeline).get(1) instanceof Document last)) return null;
    Document counting = new Document("_id", 1).append("n", new Document("$sum", 1));
    return last.size() == 1 && counting.equals(last.get("$group")) ? filter : null;
  }

  /** The filter of a pipeline's first stage when it is a `$match`, else null. */
  private static Document leadingMatch(Object pipeline) {
    if (pipeline instanceof List<?> stages && !stages.isEmpty() && stages.get(0) instanceof Document first && first.size() == 1
        && first.get("$match") instanceof Document filter) {
      return filter;
    }
    return null;
  }
}
