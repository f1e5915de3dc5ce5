# Herald developer entry points. Every target installs what it needs (tools are built from the
# Go module proxy into a per-user cache, see scripts/tools/) so each works on a fresh machine.
SHELL := bash
.DEFAULT_GOAL := help
NPM_STAMP := node_modules/.package-lock.json

.PHONY: help deps tools tools-kube tools-schemathesis tools-chromium tools-openssl tools-memory-mongo tools-actionlint tools-image tools-cluster build typecheck lint test bench up e2e clean

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(NPM_STAMP): package.json package-lock.json packages/*/package.json
	npm ci --no-audit --no-fund
	@touch $@

deps: $(NPM_STAMP) ## install npm packages (Node 24 comes with them)

tools: ## build FerretDB into the tools cache
	bash scripts/tools/ferretdb.sh >/dev/null

tools-kube: ## build kube-apiserver, kubectl, kine and helm into the tools cache
	bash scripts/tools/kube.sh all

tools-schemathesis: ## install Schemathesis (from PyPI, into the tools cache) for the API fuzz tests
	bash scripts/tools/schemathesis.sh >/dev/null

tools-chromium: ## install Debian's chromium (apt, when /usr/bin/chromium is missing) for the console's browser tests
	bash scripts/tools/chromium.sh >/dev/null

tools-openssl: ## install Debian's openssl (apt, when missing) for the mutual-TLS tests' certificates
	bash scripts/tools/openssl.sh >/dev/null

tools-actionlint: ## build actionlint (Go module proxy) into the tools cache; the suite lints .github/workflows with it
	bash scripts/tools/actionlint.sh >/dev/null

tools-image: deps ## build deploy/Dockerfile on a local Debian + Node 24 base (apt installs docker.io and debootstrap, starts dockerd when none runs)
	bash scripts/tools/herald-image.sh >/dev/null

tools-cluster: tools-kube ## build the test cluster's node (kubelet, controller-manager, scheduler, kube-proxy, CoreDNS from the Go module proxy; containerd, runc, CNI from Debian) and pause images
	bash scripts/cluster.sh build

tools-memory-mongo: ## build memory-mongo (mongo-java-server; apt installs the JDK and Maven when missing) for the MongoDB-path test run
	bash scripts/tools/memory-mongo.sh >/dev/null

build: deps ## compile every package
	npm run build

typecheck: deps ## type-check sources and tests
	npm run typecheck

lint: deps ## eslint
	npm run lint

test: deps tools tools-kube tools-schemathesis tools-chromium tools-openssl tools-memory-mongo tools-actionlint tools-image tools-cluster ## run the whole test suite (builds first), then core's and the server's again on memory-mongo
	npm test
	bash scripts/test-memory-mongo.sh

bench: deps tools build ## run the benchmarks and print figures and ratios
	npm run bench

up: deps tools build ## start Herald on 127.0.0.1:8080 with its embedded defaults
	bash scripts/up.sh

e2e: deps tools-image tools-cluster ## start a real one-node Kubernetes cluster, run the chart's end-to-end tests on it, tear it down
	npx vitest run --project cluster

clean: ## remove build outputs (keeps the tools cache)
	rm -rf packages/*/dist packages/*/*.tsbuildinfo
