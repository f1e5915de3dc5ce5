# The one node of the test cluster (scripts/cluster.sh): Debian's containerd, runc, CNI plugins and
# iptables on the local Debian base. The Kubernetes binaries (built from the Go module proxy by
# scripts/tools/kube.sh) are mounted read-only from the tools cache at /opt/kube/bin, so rebuilding
# them never rebuilds this image.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN apt-get update -qq \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
     containerd runc containernetworking-plugins iptables conntrack openssl iproute2 procps \
  && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
COPY node-entrypoint.sh /usr/local/bin/node-entrypoint.sh
ENTRYPOINT ["/usr/local/bin/node-entrypoint.sh"]
