// swift-tools-version:6.0
//
// audiograph: a streaming dataflow audio engine for Linux.
//
// C libraries come in through system-library targets found with pkg-config; Debian's
// packages are named as providers so a missing one is reported with its apt name.
// Tools/install-deps installs all of them.
import PackageDescription

let package = Package(
    name: "audiograph",
    products: [
        .library(name: "AudioGraph", targets: ["AudioGraph"]),
        .library(name: "AudioGraphServer", targets: ["AudioGraphServer"]),
        /// A client of `audiograph serve` for Swift apps on other machines: Foundation and civetweb only.
        .library(name: "AudioGraphClient", targets: ["AudioGraphClient"]),
        .executable(name: "audiograph", targets: ["audiograph"]),
        .executable(name: "audiograph-bench", targets: ["audiograph-bench"]),
        .executable(name: "audiograph-example", targets: ["audiograph-example"]),
    ],
    targets: [
        // MARK: C libraries
        // No pkgConfig: libpulse's .pc adds -D_REENTRANT and -pthread, which SwiftPM refuses
        // with a warning on every build; the headers are in /usr/include and AudioGraphPulse
        // links libpulse itself.
        .systemLibrary(name: "CPulse", providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f", providers: [.apt(["libfftw3-dev"])]),
        /// speexdsp: the echo canceller's adaptive filter and preprocessor.
        .systemLibrary(name: "CSpeexDSP", pkgConfig: "speexdsp", providers: [.apt(["libspeexdsp-dev"])]),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        /// flite's headers (flite1-dev), its libraries opened at first use (CFlite.h).
        .target(name: "CFlite"),
        .systemLibrary(
            name: "CPocketSphinx", pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev", "pocketsphinx-en-us"])]),
        /// What the decoder needs beyond PocketSphinx's API (log capture, a cepstral-mean
        /// meter, a cut vocabulary), in C; compiled against CPocketSphinx's pkg-config flags.
        .target(name: "CPocketSphinxSupport", dependencies: ["CPocketSphinx"]),
        /// civetweb: HTTP, WebSocket framing and TLS for `audiograph serve` (no pkg-config file in Debian).
        .systemLibrary(name: "CCivetweb", providers: [.apt(["libcivetweb-dev"])]),
        /// libwebsockets: the client's WebSocket and TLS, which verifies the server's
        /// certificate and name (civetweb's client does neither).
        .systemLibrary(name: "CLibWebsockets", pkgConfig: "libwebsockets", providers: [.apt(["libwebsockets-dev"])]),
        /// SIMD inner loops with run-time CPU dispatch (AVX2+FMA or SSE). No unsafe flags in
        /// any target: SwiftPM refuses them in a package other packages depend on by version.
        .target(name: "CDSPKernels"),
        /// Counts heap allocations made while a thread-local flag is set (bench only).
        .target(name: "CAllocCounter"),
        /// accept4 and posix_spawn's close-from, which glibc declares only for _GNU_SOURCE.
        .target(name: "CCloseOnExec"),
        /// glibc's <malloc.h>: `serve` limits the heaps its threads get (mallopt M_ARENA_MAX).
        .systemLibrary(name: "CMalloc"),

        // MARK: Engine
        /// Recognition results, shared by the engine and the client (no dependencies).
        .target(name: "AudioGraphResults"),
        .target(name: "AudioGraphCore", dependencies: ["AudioGraphResults", "CSndFile", "CDSPKernels"]),
        /// What an assistant's nodes share beyond audio: the playback gate, the grammar's
        /// progress, the conversation's events (wake word, assistant states, earcons, barge-in).
        .target(name: "AudioGraphConversation", dependencies: ["AudioGraphCore"]),
        .target(name: "AudioGraphDSP", dependencies: ["AudioGraphCore", "AudioGraphConversation", "CFFTW", "CDSPKernels", "CSpeexDSP"], exclude: ["Speech/TUNING.md"]),
        .target(name: "AudioGraphPulse", dependencies: ["AudioGraphCore", "AudioGraphConversation", "CPulse"],
                linkerSettings: [.linkedLibrary("pulse")]),  // CPulse has no pkgConfig (see above)
        .target(name: "AudioGraphSpeech", dependencies: ["AudioGraphCore", "AudioGraphConversation", "AudioGraphDSP", "CPocketSphinx", "CPocketSphinxSupport", "CFlite"],
                exclude: ["TUNING.md"]),
        .target(
            name: "AudioGraph",
            dependencies: ["AudioGraphCore", "AudioGraphConversation", "AudioGraphDSP", "AudioGraphPulse", "AudioGraphSpeech", "AudioGraphRemote"]),

        /// `audiograph serve`: Wyoming and WebSocket speech server over the engine.
        .target(name: "AudioGraphServer", dependencies: ["AudioGraph", "AudioGraphCore", "AudioGraphSpeech", "AudioGraphClient", "CCivetweb", "CCloseOnExec"]),

        /// Remote recognition and speech over `audiograph serve`'s WebSocket (no engine, no PocketSphinx).
        .target(name: "AudioGraphClient", dependencies: ["AudioGraphResults", "CLibWebsockets"]),

        /// Nodes whose work is done by an `audiograph serve` (remote-recognizer).
        .target(name: "AudioGraphRemote", dependencies: ["AudioGraphCore", "AudioGraphConversation", "AudioGraphSpeech", "AudioGraphClient"]),

        /// Test support: in-memory sources, offline rendering, signals (tests only).
        .target(name: "AudioGraphTestSupport", dependencies: ["AudioGraphCore"]),

        // MARK: Executables
        .executableTarget(name: "audiograph", dependencies: ["AudioGraph", "AudioGraphPulse", "AudioGraphServer", "CMalloc"]),
        .executableTarget(name: "audiograph-example", dependencies: ["AudioGraph"]),
        .executableTarget(name: "audiograph-assistant", dependencies: ["AudioGraph"]),
        .executableTarget(name: "audiograph-bench", dependencies: ["AudioGraph", "AudioGraphDSP", "AudioGraphSpeech", "AudioGraphTestSupport", "CAllocCounter"]),
        /// Fuzz targets (Tools/fuzz builds them with libFuzzer; plainly built, a replayer).
        .executableTarget(name: "audiograph-fuzz", dependencies: ["AudioGraph", "AudioGraphSpeech", "AudioGraphServer", "CPocketSphinx", "CPocketSphinxSupport"]),

        // MARK: Tests
        .testTarget(name: "AudioGraphCoreTests", dependencies: ["AudioGraphCore"]),
        .testTarget(name: "AudioGraphClientTests", dependencies: ["AudioGraphClient", "AudioGraphTestSupport", "CLibWebsockets"]),
        .testTarget(name: "AudioGraphDSPTests", dependencies: ["AudioGraphDSP", "AudioGraph", "AudioGraphTestSupport"]),
        .testTarget(name: "AudioGraphSpeechTests", dependencies: ["AudioGraphSpeech", "AudioGraphTestSupport"]),
        .testTarget(name: "AudioGraphTests", dependencies: ["AudioGraph", "AudioGraphTestSupport"]),
        .testTarget(name: "AudiographCLITests", dependencies: ["AudioGraph", "AudioGraphSpeech", "AudioGraphTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
