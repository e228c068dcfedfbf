//! Compute device from a `--device` flag: `cpu`, or `cuda` / `cuda:N` in builds with the `cuda`
//! feature (a clear error otherwise, never a silent fall-back to CPU).

use candle_core::Device;

/// Errors choosing a device.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    #[error("unknown device '{0}' (expected cpu, cuda or cuda:N)")]
    Unknown(String),
    #[error("this anonlm was built without CUDA; rebuild with `cargo build --release --features cuda` (see README)")]
    NoCuda,
    #[error("CUDA device {ordinal}: {source}")]
    Cuda {
        ordinal: usize,
        source: candle_core::Error,
    },
}

/// Parses `cpu` (`None`), `cuda` or `cuda:N` (the CUDA ordinal), in any case, without opening
/// anything: the command line checks a `--device` with it as it parses.
pub fn parse_device(spec: &str) -> Result<Option<usize>, DeviceError> {
    let spec = spec.trim().to_ascii_lowercase();
    if spec == "cpu" {
        return Ok(None);
    }
    match spec.strip_prefix("cuda") {
        Some("") => Ok(Some(0)),
        Some(rest) => rest
            .strip_prefix(':')
            .and_then(|n| n.parse::<usize>().ok())
            .map(Some)
            .ok_or(DeviceError::Unknown(spec)),
        None => Err(DeviceError::Unknown(spec)),
    }
}

/// Parses `cpu`, `cuda`, `cuda:N` and opens the device.
pub fn select_device(spec: &str) -> Result<Device, DeviceError> {
    match parse_device(spec)? {
        None => Ok(Device::Cpu),
        Some(ordinal) => open_cuda(ordinal),
    }
}

#[cfg(feature = "cuda")]
fn open_cuda(ordinal: usize) -> Result<Device, DeviceError> {
    Device::new_cuda(ordinal).map_err(|source| DeviceError::Cuda { ordinal, source })
}

#[cfg(not(feature = "cuda"))]
fn open_cuda(_ordinal: usize) -> Result<Device, DeviceError> {
    Err(DeviceError::NoCuda)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_opens_and_bad_names_are_refused() {
        assert!(matches!(select_device("CPU"), Ok(Device::Cpu)));
        assert_eq!(parse_device(" Cuda:3 ").unwrap(), Some(3));
        assert_eq!(parse_device("cuda").unwrap(), Some(0));
        assert!(matches!(select_device("gpu"), Err(DeviceError::Unknown(_))));
        assert!(matches!(
            select_device("cuda:x"),
            Err(DeviceError::Unknown(_))
        ));
    }

    #[cfg(not(feature = "cuda"))]
    #[test]
    fn cuda_without_the_feature_says_how_to_build_it() {
        let err = select_device("cuda").unwrap_err().to_string();
        assert!(err.contains("--features cuda"), "{err}");
    }
}
