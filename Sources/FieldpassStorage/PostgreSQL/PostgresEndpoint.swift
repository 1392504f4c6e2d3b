import Logging
import NIOSSL
import PostgresNIO

/// The PostgreSQL server the settings name, reached the one configured way: the pool, its
/// `LISTEN` connection and the start-up connections share its address, credentials and TLS.
struct PostgresEndpoint: Sendable {
    let settings: PostgresSettings

    /// The pool's configuration.
    var clientConfiguration: PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: settings.host, port: settings.port, username: settings.username,
            password: settings.password, database: settings.database, tls: tlsConfiguration.map { .require($0) } ?? .disable
        )
        configuration.options.maximumConnections = settings.maxConnections
        configuration.options.connectTimeout = .seconds(settings.timeout)
        return configuration
    }

    /// Runs `body` on a connection of its own, closed afterwards: for start-up work
    /// (migrations), where the pool would retry a failed connection and then report only
    /// that it gave up. A connection that fails throws ``PostgresConnectFailure``, which says why.
    func withConnection<T>(logger: Logger, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: try connectionConfiguration(), id: 0, logger: logger)
        } catch {
            throw PostgresConnectFailure(settings, error: error)
        }
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    private func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls = try tlsConfiguration.map { PostgresConnection.Configuration.TLS.require(try NIOSSLContext(configuration: $0)) }
        var configuration = PostgresConnection.Configuration(
            host: settings.host, port: settings.port, username: settings.username,
            password: settings.password, database: settings.database, tls: tls ?? .disable
        )
        configuration.options.connectTimeout = .seconds(Int64(settings.timeout))
        return configuration
    }

    /// NIOSSL's client settings for `settings.tls`, nil for plain TCP. The host name is
    /// checked by NIOSSL: against the name sent as SNI, or, for an IP address, against the
    /// address connected to.
    private var tlsConfiguration: TLSConfiguration? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch settings.tls {
        case .disable:
            return nil
        case .require:
            configuration.certificateVerification = .none
        case .verifyFull(let trustRoots):
            configuration.certificateVerification = .fullVerification
            if let trustRoots { configuration.trustRoots = .certificates(trustRoots) }
        }
        return configuration
    }
}
