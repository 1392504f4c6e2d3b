import ArgumentParser
import CommandLineSupport
import Fieldpass
import FieldpassDevice
import Foundation

/// Where `fieldpass tablet` keeps the tablet and which Fieldpass it talks to, shared by its
/// commands so that several in a row act as one tablet: its DPoP key (its identity once
/// enrolled), the shift's tokens and its offline permits, each in a file of mode 0600 kept by
/// the app library (``FileDPoPKeyStore``, ``FileTokenStore``, ``FileOfflineStore``), in a folder
/// of mode 0700.
struct TabletOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "The tablet's folder: its key and the shift's tokens (default: $XDG_DATA_HOME/fieldpass/tablet, else ~/.local/share/fieldpass/tablet)."
    )
    var dir: String?

    @Option(name: .long, help: "Base URL of the Fieldpass service (default: server.public_url of --config).")
    var server: String?

    @Option(name: .long, help: "The configuration whose server.public_url is the default --server.")
    var config = "Config/fieldpass.yaml"

    /// The tablet's folder, as given or the default one for this user.
    var folder: String {
        if let dir { return dir }
        let environment = ProcessInfo.processInfo.environment
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() + "/.local/share"
        return data + "/fieldpass/tablet"
    }

    var keyPath: String { folder + "/device-key.pem" }
    var tokensPath: String { folder + "/shift-tokens.json" }
    /// The offline permits and the offline shifts not reported yet (``FileOfflineStore``).
    var offlinePath: String { folder + "/offline.json" }

    /// The server: `--server`, else the one the configuration names (as `make run` serves it).
    func serverURL() throws -> URL {
        let text: String
        if let server {
            text = server
        } else {
            do {
                text = try FieldpassConfiguration.load(path: config).server.publicURL
            } catch {
                throw CommandFailure("no --server, and no server.public_url in \(config): \(error)")
            }
        }
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
            throw CommandFailure("--server must be an http(s) URL, not '\(text)'")
        }
        return url
    }

    /// The tablet kept in the folder, with its key; a folder without one holds no tablet yet.
    func tablet() async throws -> (tablet: SharedDevice, server: URL) {
        guard FileManager.default.fileExists(atPath: keyPath) else {
            throw CommandFailure("no tablet in \(folder): enroll one first (fieldpass tablet enroll CODE)")
        }
        let server = try serverURL()
        let tablet = SharedDevice(
            server: server, key: try await key(), store: FileTokenStore(path: tokensPath), offlineStore: FileOfflineStore(path: offlinePath)
        )
        return (tablet, server)
    }

    /// The tablet's key, made where the folder has none.
    func key() async throws -> SoftwareDPoPKey {
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CommandFailure("cannot keep the tablet in \(folder): \(error.localizedDescription)")
        }
        return try await DeviceKeyFile.loadOrCreate(keyPath, remedy: "remove it and enroll the tablet again")
    }

    /// What went wrong talking to `server`, in words, with what to do next.
    func failure(_ error: any Error, server: URL) -> CommandFailure {
        switch error {
        case let failure as CommandFailure:
            failure
        case FieldpassClientError.notEnrolled:
            CommandFailure(
                "the tablet in \(folder) is not enrolled at \(server.absoluteString) (it was unenrolled, or never enrolled there): enroll it with a new code (fieldpass tablet enroll CODE)"
            )
        case FieldpassClientError.unsafeTokenFile(let path, let problem):
            CommandFailure("not using the shift's token file \(path): \(problem); remove it")
        default:
            CommandFailure(OnboardingProgress.explain(error, server: server.absoluteString))
        }
    }
}
