// swift-tools-version:6.2
import PackageDescription

/// One settings list shared by every Swift target.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
    // Each function in a section of its own, internal ones too, so that the linker can put the
    // functions a start runs side by side (Linker/startup-order.txt).
    .unsafeFlags(["-Xfrontend", "-function-sections"], .when(platforms: [.linux], configuration: .release)),
]

#if arch(x86_64)
let linuxTriple = "x86_64-unknown-linux-gnu"
#else
let linuxTriple = "aarch64-unknown-linux-gnu"
#endif

/// The settings of a test target: it writes its index where a Linux debug build finds its tests
/// (SwiftPM reads the test targets' index to make the test runner), also when the build writes
/// none: `make` builds with --disable-index-store, since indexing the dependencies made a cold
/// build slower (514 s with it, 435 s and 470 s without, on clean clones here).
let testSettings: [SwiftSetting] =
    swiftSettings + [
        .unsafeFlags(
            ["-index-store-path", "\(Context.packageDirectory)/.build/\(linuxTriple)/debug/index/store"],
            .when(platforms: [.linux], configuration: .debug)
        )
    ]

let package = Package(
    name: "fieldpass",
    // macOS 15 for the server (Synchronization's Mutex); iOS 16 for the app's library,
    // FieldpassDevice, which needs `Duration` and `Task.sleep(for:)` and takes no Mutex.
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .executable(name: "fieldpass", targets: ["FieldpassCLI"]),
        // `fieldpass onboard` and `fieldpass tablet`, which `fieldpass` runs: the app library's
        // URLSession brings libcurl and its TLS, Kerberos and LDAP, which the server never loads.
        .executable(name: "fieldpass-device", targets: ["FieldpassDeviceCLI"]),
        .library(name: "Fieldpass", targets: ["Fieldpass"]),
        .library(name: "FieldpassDomain", targets: ["FieldpassDomain"]),
        .library(name: "FieldpassStorage", targets: ["FieldpassStorage"]),
        .library(name: "Tokens", targets: ["Tokens"]),
        // For the app: Foundation and swift-crypto only, so adding it pulls in nothing of the server.
        .library(name: "FieldpassDevice", targets: ["FieldpassDevice"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // TLS to PostgreSQL: already postgres-nio's own, named here for its configuration types.
        // The test of the first-request guard runs it on NIO's embedded channel.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // The device's DPoP key (P-256, SHA-256): CryptoKit's API on every platform, and already
        // in the graph through postgres-nio.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CJWT",
            pkgConfig: "libjwt",
            providers: [.apt(["libjwt-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        .target(
            name: "Tokens",
            dependencies: ["CJWT", "COpenSSL"],
            swiftSettings: swiftSettings
        ),
        // Records, roles and realm policy, session events, the store protocols and the rules
        // every store applies: no web framework and no database driver.
        .target(
            name: "FieldpassDomain",
            dependencies: ["Tokens"],
            swiftSettings: swiftSettings
        ),
        // The two stores: the domain's protocols over SQLite and PostgreSQL.
        .target(
            name: "FieldpassStorage",
            dependencies: [
                "FieldpassDomain",
                "Tokens",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The HTTP service: routes, sign-in with the IdPs, tokens, limits, metrics.
        .target(
            name: "Fieldpass",
            dependencies: [
                "FieldpassDomain",
                "FieldpassStorage",
                "Tokens",
                "QRCode",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            // Compiled into the binary, so `GET /openapi.json` and the console need no file beside it.
            resources: [.embedInCode("OpenAPI/openapi.json"), .embedInCode("Console/Assets")],
            swiftSettings: swiftSettings
        ),
        // The device's half of the protocol, for apps: register, follow events, keep tokens,
        // prove them with the device's key.
        .target(
            name: "FieldpassDevice",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                // Offline shifts: scrypt for the PIN verifier, RSA to check an RS256 permit.
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // A text as a QR code in SVG, for the console's enrollment codes and badges.
        .target(
            name: "QRCode",
            dependencies: ["CQRencode"],
            swiftSettings: swiftSettings
        ),
        // What both command-line tools print and how they fail.
        .target(
            name: "CommandLineSupport",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FieldpassCLI",
            dependencies: [
                "CommandLineSupport",
                "Fieldpass",
                "FieldpassDomain",
                "FieldpassStorage",
                "Tokens",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings,
            linkerSettings: [
                // lld packs the binary's 70,000 relative relocations (DT_RELR, glibc 2.36): gold's
                // table of them is 2 MB that every instance reads at start and keeps resident.
                .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"], .when(platforms: [.linux])),
                // The functions a start runs, side by side at the front of the text
                // (scripts/startup-order): an idle instance keeps 5.6 MB less of it resident.
                .unsafeFlags(
                    [
                        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Linker/startup-order.txt",
                        "-Xlinker", "--no-warn-symbol-ordering",
                    ],
                    .when(platforms: [.linux], configuration: .release)
                ),
            ]
        ),
        .executableTarget(
            name: "FieldpassDeviceCLI",
            dependencies: [
                "CommandLineSupport",
                "Fieldpass",
                "FieldpassDevice",
                "Tokens",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
        // The rules alone: builds without a database driver or a web framework.
        .testTarget(
            name: "FieldpassDomainTests",
            dependencies: ["FieldpassDomain"],
            swiftSettings: testSettings
        ),
        // The client library against the real `fieldpass` binary and a loopback IdP.
        .testTarget(
            name: "FieldpassDeviceTests",
            dependencies: [
                "FieldpassDevice",
                "Tokens",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "TokensTests",
            dependencies: ["Tokens"],
            swiftSettings: testSettings
        ),
        // The SVG parsed as XML, and drawn by rsvg-convert for a real QR reader (zbarimg) to read back.
        .testTarget(
            name: "QRCodeTests",
            dependencies: ["QRCode"],
            swiftSettings: testSettings
        ),
        // What the storage and service tests share: a store to test on, either kind.
        .target(
            name: "StoreTestSupport",
            dependencies: [
                "FieldpassDomain",
                "FieldpassStorage",
                "Tokens",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/StoreTestSupport",
            swiftSettings: swiftSettings
        ),
        // Every store suite, each on SQLite and PostgreSQL: no web framework.
        .testTarget(
            name: "FieldpassStorageTests",
            dependencies: [
                "FieldpassDomain",
                "FieldpassStorage",
                "StoreTestSupport",
                "Tokens",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "FieldpassTests",
            dependencies: [
                "Fieldpass",
                "FieldpassDomain",
                "FieldpassStorage",
                "StoreTestSupport",
                "Tokens",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: testSettings
        ),
    ]
)
