; Inno Setup script: a Windows installer for the one-folder PyInstaller build.
; Build dist\shrec-gui\ first (python packaging\build.py), then, with the version
; of the build (setuptools-scm's, from the git tag: packaging/README.md):
;     iscc /DAppVersion=X.Y.Z packaging\shrec-gui.iss
; Produces dist\shrec-gui-setup-X.Y.Z.exe.

#define AppName "SHREC evaluation"
#ifndef AppVersion
  #error Give the version: iscc /DAppVersion=X.Y.Z packaging\shrec-gui.iss
#endif
#define AppExe "shrec-gui.exe"

[Setup]
AppId={{6C5B7E1A-2F4C-4E7D-9B0A-5A1F3C2D8E41}
AppName={#AppName}
AppVersion={#AppVersion}
AppPublisher=shrec-eval
DefaultDirName={autopf}\shrec-eval
DefaultGroupName={#AppName}
OutputDir=..\dist
OutputBaseFilename=shrec-gui-setup-{#AppVersion}
SetupIconFile=..\resources\icons\shrec-eval.ico
UninstallDisplayIcon={app}\{#AppExe}
Compression=lzma2
SolidCompression=yes
ArchitecturesInstallIn64BitMode=x64compatible
PrivilegesRequiredOverridesAllowed=dialog
WizardStyle=modern

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "..\dist\shrec-gui\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\{#AppName}"; Filename: "{app}\{#AppExe}"
Name: "{group}\{#AppName} (demo contest)"; Filename: "{app}\{#AppExe}"; Parameters: "--demo"
Name: "{group}\{cm:UninstallProgram,{#AppName}}"; Filename: "{uninstallexe}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Tasks: desktopicon

[Run]
Filename: "{app}\{#AppExe}"; Parameters: "--demo"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent
