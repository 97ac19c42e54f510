import SalusRPC

/// Where an app finds the daemon: `SALUS_SOCKET`, else the default app socket
/// (`$XDG_RUNTIME_DIR/salus/salus.sock`, or `/tmp/salus-<uid>/salus.sock`).
public enum SalusEndpoint {
    /// The app socket path this process would use.
    public static var appSocketPath: String { DefaultPaths.appSocket() }

    /// The owner's admin socket path this process would use (`SALUS_ADMIN_SOCKET` first).
    public static var adminSocketPath: String { DefaultPaths.adminSocket() }
}
