/* The pod sandbox process: holds the pod's namespaces, reaps orphaned children (it is PID 1 when
 * the pod shares its PID namespace) and exits at once on SIGTERM/SIGINT so a pod stops without
 * waiting for the runtime's kill timeout. Built statically into the cluster's pause image. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int sig) { (void)sig; _exit(0); }

static void reap(int sig) {
  (void)sig;
  while (waitpid(-1, NULL, WNOHANG) > 0) {}
}

int main(void) {
  struct sigaction term = {0}, child = {0};
  term.sa_handler = stop;
  child.sa_handler = reap;
  child.sa_flags = SA_NOCLDSTOP | SA_RESTART;
  sigaction(SIGTERM, &term, NULL);
  sigaction(SIGINT, &term, NULL);
  sigaction(SIGCHLD, &child, NULL);
  for (;;) pause();
}
