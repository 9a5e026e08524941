# BuzzKit: `make demo` runs the main job, `make test` runs the tests.
SHELL := /bin/bash
.DEFAULT_GOAL := build

BUZZKIT_PG_PORT ?= 55432
BUZZKIT_AMQP_PORT ?= 55672
export BUZZKIT_PG_PORT BUZZKIT_AMQP_PORT
export BUZZKIT_DATABASE_URL ?= postgres://postgres@127.0.0.1:$(BUZZKIT_PG_PORT)/buzzkit
export BUZZKIT_AMQP_URL ?= amqp://guest:guest@127.0.0.1:$(BUZZKIT_AMQP_PORT)/%2f

SWIFT_BUILD_FLAGS ?=

.PHONY: build deps services services-stop services-status migrate test test-unit test-integration test-e2e check-deploy demo console bench chaos services-cluster services-cluster-stop chaos-cluster clean

deps:            ## install the Debian packages the build and the services need
	bash scripts/services.sh install

build: deps      ## debug build of every target
	swift build $(SWIFT_BUILD_FLAGS)

services:        ## start PostgreSQL 15 and RabbitMQ on loopback (no-op when running)
	bash scripts/services.sh start

services-stop:   ## stop what `make services` started
	bash scripts/services.sh stop

services-status:
	bash scripts/services.sh status

migrate: build services
	swift run $(SWIFT_BUILD_FLAGS) buzzkit migrate

test: services   ## unit, then integration, then end-to-end tests against the real services
	$(MAKE) --no-print-directory check-deploy
	swift build --build-tests $(SWIFT_BUILD_FLAGS)
	$(MAKE) --no-print-directory test-unit
	swift run $(SWIFT_BUILD_FLAGS) buzzkit migrate
	$(MAKE) --no-print-directory test-integration
	$(MAKE) --no-print-directory test-e2e

test-unit:       ## tier 1: pure unit tests, no services
	swift test --skip-build --disable-swift-testing $(SWIFT_BUILD_FLAGS) --skip IntegrationTests --skip EndToEndTests

test-integration: ## tier 2: against real PostgreSQL and RabbitMQ
	swift test --skip-build --disable-swift-testing $(SWIFT_BUILD_FLAGS) --filter IntegrationTests

test-e2e:        ## tier 3: the device simulator against the real server processes
	swift test --skip-build --disable-swift-testing $(SWIFT_BUILD_FLAGS) --filter EndToEndTests

check-deploy: deps ## the compose file and Kubernetes manifests agree with the code and validate against their schemas
	BUZZKIT_POSTGRES_PASSWORD=check BUZZKIT_RABBITMQ_PASSWORD=check docker-compose -f docker-compose.yml config -q
	BUZZKIT_POSTGRES_PASSWORD=check BUZZKIT_RABBITMQ_PASSWORD=check \
	  docker-compose -f docker-compose.yml --env-file deploy/compose-simulator.env --profile simulator config -q
	.tools/venv/bin/python scripts/check-deploy.py

demo: services   ## the main job: 1,000 simulated phones end to end
	bash scripts/demo.sh

console: deps    ## the console over the last demo's data (http://127.0.0.1:18480/console)
	bash scripts/console.sh

bench: services  ## figures beside this machine's raw PostgreSQL and RabbitMQ ceilings
	bash scripts/bench.sh

chaos: services  ## fault drill: worker kills, scheduler pause, PostgreSQL and RabbitMQ restarts under a fleet load
	bash scripts/chaos.sh

services-cluster: deps ## three clustered RabbitMQ nodes, and PostgreSQL primary + synchronous standby with automatic failover (pg_auto_failover), on loopback
	bash scripts/services.sh cluster-start

services-cluster-stop: ## stop what `make services-cluster` started
	bash scripts/services.sh cluster-stop

chaos-cluster: deps ## cluster drill: SIGKILL the busiest RabbitMQ node, then the PostgreSQL primary, under a fleet load
	bash scripts/chaos.sh cluster

clean:
	rm -rf .build
