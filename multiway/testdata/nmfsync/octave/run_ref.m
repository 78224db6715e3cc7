% run_ref(DIR): runs the authors' nmfSync as the CLEAR paper's harness calls
% it, nmfSync(W, dimVector, m) (dense eig, theta 0), on every DIR/pNN.txt
% (clearmatch's problem text format, with a "# universe m" comment), and
% writes each observation's item (0-based column of U) to DIR/pNN.ref.
% W is the symmetric association matrix with identity diagonal blocks.
function run_ref(dir)
  s = dir_list(dir);
  for f = 1:numel(s)
    [W, dims, m] = read_problem(s{f});
    rand('seed', 1); rand('state', 1); % the auction's dummy rows
    [~, U] = nmfSync(full(W), dims, m);
    [r, c] = find(U);
    lab = zeros(size(W, 1), 1); lab(r) = c - 1;
    out = [s{f}(1:end-4) '.ref'];
    fid = fopen(out, 'w'); fprintf(fid, '%d\n', lab); fclose(fid);
    printf('%s: %d observations, universe %d, %d items\n', out, size(W, 1), m, size(U, 2));
  end
end

function [W, dims, m] = read_problem(file)
  lines = strsplit(fileread(file), "\n");
  m = []; body = {};
  for i = 1:numel(lines)
    line = strtrim(lines{i});
    if isempty(line), continue; end
    if line(1) == '#'
      v = sscanf(line, '# universe %d');
      if ~isempty(v), m = v; end
      continue;
    end
    body{end+1} = line;
  end
  dims = sscanf(body{1}, '%f');
  n = sum(dims);
  a = zeros(numel(body) - 1, 3);
  for i = 2:numel(body)
    x = sscanf(body{i}, '%f')';
    if numel(x) == 2, x(3) = 1; end
    a(i - 1, :) = x;
  end
  W = sparse(a(:, 1) + 1, a(:, 2) + 1, a(:, 3), n, n);
  W = W + W' + speye(n);
end

function files = dir_list(d)
  s = dir(fullfile(d, 'p*.txt'));
  files = cellfun(@(x) fullfile(d, x), {s.name}, 'UniformOutput', false);
end
