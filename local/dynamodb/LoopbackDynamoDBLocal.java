/*
 * DynamoDB Local bound to loopback, and alive only as long as the process that started it.
 *
 * DynamoDB Local's own launcher (ServerRunner, what `java -jar DynamoDBLocal.jar` runs) has no option
 * for the address it listens on: it builds its Jetty server with `new Server(port)`, which listens on
 * every interface, so anyone on the network could read and write the local table (password hashes
 * included). This launcher builds the same server from the same command-line options, moves its
 * connector to 127.0.0.1 (the `dynamodb.host` system property) before it starts, and then starts it.
 * It reaches the server by reflection, so it compiles against nothing: local/runtime.ts compiles it
 * once with the runtime's compiler module (or `java` runs it from source, JEP 330) and runs it with
 * DynamoDB Local's jar on the class path.
 *
 * Its standard input is its lifeline: the parent holds the other end of a pipe, and when that end
 * closes (the parent exited, crashed or was killed with SIGKILL) this process exits too.
 *
 * Telemetry stays off: it is set up only by ServerRunner.main, which this launcher does not call.
 */
import java.io.IOException;
import java.lang.reflect.Field;

public class LoopbackDynamoDBLocal {
  public static void main(String[] args) throws Exception {
    String host = System.getProperty("dynamodb.host", "127.0.0.1");
    Class<?> runner = Class.forName("software.amazon.dynamodb.services.local.main.ServerRunner");
    Object proxy = runner.getMethod("createServerFromCommandLineArgs", String[].class).invoke(null, (Object) args);
    Field field = proxy.getClass().getDeclaredField("server");
    field.setAccessible(true);
    Object jetty = field.get(proxy);
    Object[] connectors = (Object[]) jetty.getClass().getMethod("getConnectors").invoke(jetty);
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local's server has no connector to bind");
    for (Object connector : connectors) connector.getClass().getMethod("setHost", String.class).invoke(connector, host);

    Thread lifeline = new Thread(() -> {
      try {
        while (System.in.read() != -1) {
          // nothing is ever sent; the read returns -1 when the parent's end closes
        }
      } catch (IOException gone) {
        // the same: the parent is gone
      }
      System.exit(0);
    }, "lifeline");
    lifeline.setDaemon(true);
    lifeline.start();

    proxy.getClass().getMethod("start").invoke(proxy);
    System.out.println("DynamoDB Local listening on " + host);
  }
}
