// swift-tools-version:6.2
import PackageDescription

// Only toolchain modules and Debian's C libraries: no outside Swift packages.
let package = Package(
    name: "BuzzKit",
    platforms: [.macOS(.v14), .iOS(.v15)],
    products: [
        // The device SDK an app adds: Foundation and BuzzKitWire only, no server or C target.
        .library(name: "BuzzKit", targets: ["BuzzKit"]),
        .executable(name: "buzzkit", targets: ["buzzkit"]),
        .library(name: "PostgresClient", targets: ["PostgresClient"]),
        .library(name: "AMQPClient", targets: ["AMQPClient"]),
    ],
    targets: [
        // C system libraries and the shim for their variadic functions.
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ",
                       providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CRabbitMQ", path: "Sources/CRabbitMQ",
                       providers: [.apt(["librabbitmq-dev"])]),
        .target(name: "CShims", dependencies: ["CRabbitMQ"], path: "Sources/CShims",
                linkerSettings: [.linkedLibrary("rabbitmq")]),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD",
                       providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "CHTTPShims", dependencies: ["CMicroHTTPD"], path: "Sources/CHTTPShims",
                linkerSettings: [.linkedLibrary("microhttpd")]),

        // Safe adapters: the only modules that import C.
        .target(name: "PostgresClient", dependencies: ["CLibPQ", "BuzzKitWire"]),
        // AMQP's message model (messages, field values): plain values, no C.
        .target(name: "AMQPModel"),
        .target(name: "AMQPClient", dependencies: ["AMQPModel", "CRabbitMQ", "CShims"]),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "CHTTPShims", "BuzzCrypto"]),
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", providers: [.apt(["libssl-dev"])]),
        .target(name: "BuzzCrypto", dependencies: ["COpenSSL"]),
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CNGHTTP2", path: "Sources/CNGHTTP2", providers: [.apt(["libnghttp2-dev"])]),
        .target(name: "CPushShims", dependencies: ["CCurl", "COpenSSL", "CNGHTTP2"], path: "Sources/CPushShims",
                linkerSettings: [.linkedLibrary("curl"), .linkedLibrary("ssl"), .linkedLibrary("crypto"), .linkedLibrary("nghttp2")]),
        // Push delivery: the PushProvider port, APNs over HTTP/2 (libcurl) with ES256 tokens.
        .target(name: "PushDelivery", dependencies: ["CCurl", "COpenSSL", "CPushShims", "BuzzCrypto", "BuzzKitWire"]),
        // The local APNs stand-in (Apple's side); shares no code with the client on purpose.
        .target(name: "APNsStandIn", dependencies: ["COpenSSL", "CNGHTTP2", "CPushShims", "BuzzCrypto"]),

        // The pure core: wire types (shared with the SDK) and the engine. No I/O.
        .target(name: "BuzzKitWire"),
        .target(name: "BuzzEngine", dependencies: ["BuzzKitWire"]),
        .target(name: "BuzzEngineCLI", dependencies: ["BuzzEngine"]),
        // The device SDK (Foundation only) and the simulator that plays a fleet of phones with it.
        // On Linux the Apple layer's files are left out of BuzzKit (NO_APPLE_FRAMEWORKS: a model
        // module named UIKit elsewhere in the build would otherwise make `canImport(UIKit)` true).
        .target(name: "BuzzKit", dependencies: ["BuzzKitWire"],
                swiftSettings: [.define("NO_APPLE_FRAMEWORKS", .when(platforms: [.linux]))]),
        // A model of the UIKit, UserNotifications and Network API the Apple layer uses, for
        // Linux (docs/apple-model.md), and the SDK's very files compiled against it:
        // Sources/BuzzKitOnAppleModel is a link to Sources/BuzzKit. Test and simulator use only.
        .target(name: "AppleModelCore", path: "Sources/AppleModel/Core"),
        .target(name: "UIKit", dependencies: ["AppleModelCore"], path: "Sources/AppleModel/UIKit"),
        .target(name: "UserNotifications", dependencies: ["AppleModelCore"], path: "Sources/AppleModel/UserNotifications"),
        .target(name: "Network", path: "Sources/AppleModel/Network"),
        .target(name: "BuzzKitOnAppleModel", dependencies: ["BuzzKitWire", "AppleModelCore", "UIKit", "UserNotifications", "Network"],
                path: "Sources/BuzzKitOnAppleModel"),
        // Its phones run the SDK's Apple layer on the Apple model (BuzzKitOnAppleModel).
        .target(name: "DeviceSimulator", dependencies: ["BuzzKitOnAppleModel", "BuzzKitWire", "AppleModelCore", "UIKit", "UserNotifications",
                                                        "Network", "APNsStandIn", "BuzzCrypto"]),

        // Server-side modules.
        // Server-side modules, inner to outer (docs/architecture.md has the picture).
        // The server's vocabulary: errors and the failure rule, logging, metrics, the service
        // lifecycle, the queue topology's names, the broker port and the settings. No I/O.
        .target(name: "BuzzServerCore", dependencies: ["AMQPModel", "BuzzKitWire"]),
        // The store, directory and outbox ports, their PostgreSQL drivers and the migrations.
        .target(name: "BuzzStore", dependencies: ["BuzzServerCore", "BuzzEngine", "BuzzKitWire", "PostgresClient", "BuzzCrypto"],
                resources: [.copy("Migrations")]),
        // The queues' stages and their one worker loop, over the ports only (no C client).
        .target(name: "BuzzPipeline", dependencies: ["BuzzServerCore", "BuzzStore", "BuzzEngine", "BuzzKitWire", "AMQPModel", "BuzzCrypto", "PushDelivery"]),
        // The outbox relay, the window completer and retention.
        .target(name: "BuzzScheduler", dependencies: ["BuzzServerCore", "BuzzStore", "BuzzPipeline", "BuzzEngine", "PostgresClient"]),
        // A process: configuration, the runtime that wires the ports to PostgreSQL and
        // RabbitMQ (AMQPBroker), operators' dead-letter tools.
        .target(name: "BuzzServer", dependencies: ["BuzzServerCore", "BuzzStore", "BuzzPipeline", "BuzzScheduler", "BuzzEngine", "BuzzKitWire",
                                                   "PostgresClient", "AMQPClient", "BuzzCrypto", "PushDelivery"]),

        .target(name: "BuzzAPI", dependencies: ["BuzzServer", "BuzzEngine", "BuzzKitWire", "HTTPServer", "BuzzCrypto", "AMQPClient", "PostgresClient"],
                resources: [.copy("Console")]),

        // In-memory twins of the server's ports (store, directory, outbox, broker), for tests
        // that run without services.
        .target(name: "BuzzServerTesting", dependencies: ["BuzzServerCore", "BuzzStore", "BuzzPipeline", "BuzzScheduler", "BuzzServer", "BuzzEngine", "BuzzKitWire", "AMQPClient", "BuzzCrypto"]),
        // The SDK's push source for tests.
        .target(name: "BuzzKitTesting", dependencies: ["BuzzKit", "BuzzKitWire"]),
        // The push provider's in-memory twin, for tests and the bench.
        .target(name: "PushDeliveryTesting", dependencies: ["PushDelivery", "BuzzCrypto"]),
        // The one manual clock of every test suite (server, SDK, push delivery).
        .target(name: "BuzzTesting", dependencies: ["BuzzKitWire"]),

        .executableTarget(name: "buzzkit", dependencies: ["BuzzServer", "BuzzAPI", "BuzzEngineCLI", "PostgresClient", "AMQPClient", "PushDelivery"]),
        .executableTarget(name: "buzzkit-devicesim", dependencies: ["DeviceSimulator", "APNsStandIn"], path: "Sources/buzzkit-devicesim"),
        .executableTarget(name: "buzzkit-apns", dependencies: ["APNsStandIn"], path: "Sources/buzzkit-apns"),
        .executableTarget(name: "apns-bench", dependencies: ["PushDelivery", "APNsStandIn"], path: "Sources/apns-bench"),
        .executableTarget(name: "buzzkit-bench", dependencies: ["BuzzAPI", "BuzzEngine", "BuzzKitWire", "BuzzServer", "PushDelivery", "PushDeliveryTesting", "PostgresClient", "AMQPClient", "HTTPServer", "BuzzCrypto"],
                          path: "Sources/buzzkit-bench"),

        // Tier 1: pure unit tests (no services).
        .testTarget(name: "BuzzEngineTests", dependencies: ["BuzzEngine", "BuzzEngineCLI", "BuzzKitWire", "BuzzTesting"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "PostgresClientTests", dependencies: ["PostgresClient"]),
        .testTarget(name: "AMQPClientTests", dependencies: ["AMQPClient"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer"]),
        .testTarget(name: "BuzzKitTests", dependencies: ["BuzzKit", "BuzzKitWire", "BuzzKitTesting", "BuzzTesting"]),
        // The SDK's Apple layer run on the Apple model (Linux): automatic push handling end to end.
        .testTarget(name: "AppleLayerTests", dependencies: ["BuzzKitOnAppleModel", "BuzzKitWire", "AppleModelCore", "UIKit",
                                                            "UserNotifications", "Network"]),
        // The device simulator's model of iOS itself (no server).
        .testTarget(name: "DeviceSimulatorTests", dependencies: ["DeviceSimulator", "BuzzKitOnAppleModel", "BuzzKitWire"]),
        .testTarget(name: "PushDeliveryTests", dependencies: ["PushDelivery", "APNsStandIn", "COpenSSL", "BuzzKitWire", "BuzzTesting", "PushDeliveryTesting"]),
        .testTarget(name: "BuzzServerTests", dependencies: ["BuzzServerCore", "BuzzStore", "BuzzPipeline", "BuzzScheduler", "BuzzServer", "BuzzServerTesting", "BuzzTesting", "PushDeliveryTesting", "BuzzAPI", "HTTPServer", "BuzzEngine", "BuzzKitWire", "PushDelivery", "BuzzCrypto"]),
        // Tier 2: integration tests against real PostgreSQL and RabbitMQ.
        // Tier 3: the device simulator against the real server processes.
        .testTarget(name: "EndToEndTests", dependencies: ["DeviceSimulator", "APNsStandIn", "BuzzServer", "PostgresClient", "AMQPClient", "AMQPModel"]),
        .testTarget(name: "IntegrationTests", dependencies: ["BuzzServerCore", "BuzzStore", "BuzzPipeline", "BuzzScheduler", "PostgresClient", "AMQPClient", "BuzzServer", "BuzzServerTesting", "BuzzTesting", "PushDeliveryTesting", "BuzzAPI", "BuzzEngine",
                                                             "BuzzKitWire", "PushDelivery", "HTTPServer", "APNsStandIn"]),
    ],
    swiftLanguageModes: [.v6]
)
