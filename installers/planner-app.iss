; Inno Setup script for the Windows installer. Build the one-folder app first (see README.md),
; then: iscc installers\planner-app.iss   -> installers\Output\planner-app-setup.exe
#define AppVersion "0.1.0"

[Setup]
AppId={{6B3E2E52-8C1F-4C55-9D5E-2F1A9D0C7E41}
AppName=planner_app
AppVersion={#AppVersion}
AppPublisher=planner_app
DefaultDirName={autopf}\planner_app
DefaultGroupName=planner_app
SetupIconFile=..\resources\icons\planner-app.ico
UninstallDisplayIcon={app}\planner-app.exe
OutputBaseFilename=planner-app-setup
Compression=lzma2
SolidCompression=yes
ArchitecturesInstallIn64BitMode=x64
PrivilegesRequiredOverridesAllowed=dialog

[Files]
Source: "dist\planner-app\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\planner_app"; Filename: "{app}\planner-app.exe"
Name: "{autodesktop}\planner_app"; Filename: "{app}\planner-app.exe"; Tasks: desktopicon

[Tasks]
Name: "desktopicon"; Description: "Create a desktop shortcut"; Flags: unchecked

[Run]
Filename: "{app}\planner-app.exe"; Parameters: "--demo"; Description: "Open planner_app on the demo"; Flags: nowait postinstall skipifsilent
