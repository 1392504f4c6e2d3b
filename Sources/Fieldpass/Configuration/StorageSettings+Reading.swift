import FieldpassDomain
import FieldpassStorage
import Foundation
import NIOSSL

// The store's settings are storage types; reading them from the configuration is the service's.

extension StorageSettings {
    init(_ settings: SettingsReader, environment: [String: String]) throws(ConfigurationError) {
        let name = try settings.string(["storage", "driver"], default: Driver.sqlite.rawValue)
        guard let driver = Driver(rawValue: name) else {
            throw ConfigurationError(key: "storage.driver", "must be sqlite or postgres, not '\(name)'")
        }
        self.init(
            driver: driver,
            sqlitePath: try settings.string(["storage", "sqlite_path"], default: "data/fieldpass.sqlite"),
            postgres: driver == .postgres ? try PostgresSettings(settings, environment: environment) : nil
        )
    }
}

extension PostgresSettings {
    init(_ settings: SettingsReader, environment: [String: String]) throws(ConfigurationError) {
        let key = ["storage", "postgres", "url"]
        let text = try settings.string(key)
        guard let url = URLComponents(string: text), url.scheme == "postgres" || url.scheme == "postgresql",
            let host = url.host, !host.isEmpty, let user = url.user, !user.isEmpty,
            url.path.count > 1, url.query == nil
        else {
            throw ConfigurationError(key: settings.dotted(key), "must look like postgres://user@host:5432/database")
        }
        guard url.password == nil else {
            throw ConfigurationError(
                key: settings.dotted(key), "must not contain a password; name its environment variable in storage.postgres.password_env"
            )
        }
        var password: String?
        if let variable = try settings.optionalString(["storage", "postgres", "password_env"]) {
            guard let value = environment[variable], !value.isEmpty else {
                throw ConfigurationError(key: "storage.postgres.password_env", "set the environment variable \(variable)")
            }
            password = value
        }
        self.init(
            host: host, port: url.port ?? 5432, database: String(url.path.dropFirst()), username: user, password: password,
            maxConnections: try settings.int(["storage", "postgres", "max_connections"], default: 20, in: 2...1000),
            timeout: try settings.int(["storage", "postgres", "timeout"], default: 5, in: 1...300),
            tls: try PostgresTLS(settings, host: host)
        )
    }
}

extension PostgresTLS {
    init(_ settings: SettingsReader, host: String) throws(ConfigurationError) {
        let modeKey = ["storage", "postgres", "tls"]
        let caKey = ["storage", "postgres", "ca_file"]
        let mode = try settings.string(modeKey, default: LoopbackHost.contains(host) ? "disable" : "verify-full")
        let caFile = try settings.optionalString(caKey)
        switch mode {
        case "verify-full":
            guard let caFile else {
                self = .verifyFull(trustRoots: nil)
                return
            }
            self = .verifyFull(trustRoots: try Self.certificates(in: caFile, key: settings.dotted(caKey)))
        case "disable", "require":
            guard caFile == nil else {
                throw ConfigurationError(key: settings.dotted(caKey), "is used only with storage.postgres.tls: verify-full, not \(mode)")
            }
            self = mode == "disable" ? .disable : .require
        default:
            throw ConfigurationError(key: settings.dotted(modeKey), "must be disable, require or verify-full, not '\(mode)'")
        }
    }

    private static func certificates(in path: String, key: String) throws(ConfigurationError) -> [NIOSSLCertificate] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else {
            throw ConfigurationError(key: key, "no file at '\(path)'")
        }
        // NIOSSL throws when the file holds no certificate at all (an empty file, a key).
        guard let certificates = try? NIOSSLCertificate.fromPEMFile(path), !certificates.isEmpty else {
            throw ConfigurationError(key: key, "'\(path)' holds no PEM certificate")
        }
        return certificates
    }
}
