// What an app names when it uses the SDK (errors, log levels, quality warnings, audio devices)
// comes with `import ParleyVoice`.
@_exported import AudioCore
@_exported import AudioDevices
@_exported import CallQuality
@_exported import ParleyCore
