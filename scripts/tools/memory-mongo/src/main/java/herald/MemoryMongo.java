package herald;

import de.bwaldvogel.mongo.MongoServer;

/** Serves the MongoDB wire protocol from memory on 127.0.0.1:PORT until stopped (SIGTERM, or stdin closing). */
public final class MemoryMongo {
  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 27017;
    MongoServer server = new MongoServer(new IndexServedBackend());
    server.bind("127.0.0.1", port);
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
    System.out.println("listening on 127.0.0.1:" + port);
    System.out.flush();
    Thread.currentThread().join();
  }
}
