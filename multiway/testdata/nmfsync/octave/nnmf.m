% A stand-in for MATLAB's nnmf (Statistics Toolbox), which Octave lacks:
% MATLAB's nnmf with 'algorithm','mult', 'w0', 'h0' and its default options
% (MaxIter 100, TolX 1e-4, TolFun 1e-4, one replicate), as MATLAB documents
% it: multiplicative updates, then the rows of H normalized to unit length
% and the columns of W ordered by decreasing length.
function [w, h] = nnmf(a, k, varargin)
  for i = 1:2:numel(varargin)
    switch lower(varargin{i})
      case 'w0', w0 = varargin{i+1};
      case 'h0', h0 = varargin{i+1};
    end
  end
  [n, m] = size(a);
  maxiter = 100; tolx = 1e-4; tolfun = 1e-4;
  sqrteps = sqrt(eps);
  dnorm0 = Inf;
  for j = 1:maxiter
    numer = w0' * a;
    h = max(0, h0 .* (numer ./ ((w0' * w0) * h0 + eps(numer))));
    numer = a * h';
    w = max(0, w0 .* (numer ./ (w0 * (h * h') + eps(numer))));
    d = a - w * h;
    dnorm = sqrt(sum(sum(d.^2)) / (n * m));
    dw = max(max(abs(w - w0) / (sqrteps + max(max(abs(w0))))));
    dh = max(max(abs(h - h0) / (sqrteps + max(max(abs(h0))))));
    delta = max(dw, dh);
    if j > 1
      if delta <= tolx
        break;
      elseif dnorm0 - dnorm <= tolfun * max(1, dnorm0)
        break;
      elseif j == maxiter
        break;
      end
    end
    dnorm0 = dnorm; w0 = w; h0 = h;
  end
  hlen = sqrt(sum(h.^2, 2));
  hlen(hlen == 0) = 1;
  w = bsxfun(@times, w, hlen');
  h = bsxfun(@times, h, 1 ./ hlen);
  [~, idx] = sort(sum(w.^2, 1), 'descend');
  w = w(:, idx);
  h = h(idx, :);
end
