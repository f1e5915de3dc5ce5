package herald;

import de.bwaldvogel.mongo.backend.DefaultQueryMatcher;
import de.bwaldvogel.mongo.backend.QueryMatcher;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Matches a document against a `$or` each of whose branches names a string `_id` using only the
 * branches that name the document's own `_id`, as MongoDB's plan for such a filter does (one `_id`
 * lookup per branch, each found document checked against its branch). The stand-in's matcher checks
 * every branch for every document, so a conditional write of n rows would cost n² branch checks.
 * The answer is the same: a branch naming another `_id` cannot match the document.
 */
final class IdBranchMatcher implements QueryMatcher {
  private static final String ID = "_id";
  private final QueryMatcher matcher = new DefaultQueryMatcher();
  /** The last such filter seen (a write checks each of its documents against the same one), by `_id`. */
  private Document lastFilter;
  private Map<String, Document> lastById;

  @Override
  public boolean matches(Document document, Document query) {
    Map<String, Document> byId = branchesById(query);
    if (byId == null) return matcher.matches(document, query);
    Document own = byId.get(idOf(document));
    return own != null && matcher.matches(document, own);
  }

  @Override
  public Integer matchPosition(Document document, Document query) {
    Map<String, Document> byId = branchesById(query);
    if (byId == null) return matcher.matchPosition(document, query);
    Document own = byId.get(idOf(document));
    return own == null ? null : matcher.matchPosition(document, own);
  }

  @Override
  public boolean matchesValue(Object queryValue, Object value) {
    return matcher.matchesValue(queryValue, value);
  }

  private static String idOf(Document document) {
    return document.get(ID) instanceof String id ? id : null;
  }

  /** The filter's branches as a `$or` per `_id`, or null when it is not such a filter. */
  private synchronized Map<String, Document> branchesById(Document query) {
    if (query == lastFilter) return lastById;
    Map<String, Document> byId = null;
    if (query.size() == 1 && query.get("$or") instanceof List<?> branches && !branches.isEmpty()) {
      Map<String, List<Object>> grouped = new HashMap<>();
      for (Object branch : branches) {
        if (!(branch instanceof Document document) || !(document.get(ID) instanceof String id)) {
          grouped = null;
          break;
        }
        grouped.computeIfAbsent(id, key -> new ArrayList<>()).add(branch);
      }
      if (grouped != null) {
        byId = new HashMap<>();
        for (Map.Entry<String, List<Object>> entry : grouped.entrySet()) byId.put(entry.getKey(), new Document("$or", entry.getValue()));
      }
    }
    lastFilter = query;
    lastById = byId;
    return byId;
  }
}
